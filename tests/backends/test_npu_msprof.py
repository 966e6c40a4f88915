"""msprof op's PipeUtilization.csv read by header name into the simulator report's schema."""

import pytest

from tuner.backends.npu.msprof import MsprofParseError, parse_pipe_utilization, profile_from_report

# The A2 layout of `msprof op` (CANN 8.x): aic_* columns are N/A for a vector-only kernel, one row per block.
CURRENT = """\
block_id,sub_block_id,aic_time(us),aic_total_cycles,aic_cube_time(us),aic_cube_ratio,aic_scalar_time(us),\
aic_scalar_ratio,aic_mte1_time(us),aic_mte1_ratio,aic_mte2_time(us),aic_mte2_ratio,aic_fixpipe_time(us),\
aic_fixpipe_ratio,aic_icache_miss_rate,aiv_time(us),aiv_total_cycles,aiv_vec_time(us),aiv_vec_ratio,\
aiv_scalar_time(us),aiv_scalar_ratio,aiv_mte2_time(us),aiv_mte2_ratio,aiv_mte3_time(us),aiv_mte3_ratio,\
aiv_icache_miss_rate
0,vector0,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,12.5,22500,1.25,0.1,6.25,0.5,10.0,0.8,2.5,0.2,0.01
1,vector0,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,14.0,25200,2.8,0.2,5.6,0.4,12.6,0.9,4.2,0.3,0.02
2,vector0,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,13.0,23400,1.3,0.1,6.5,0.5,10.4,0.8,2.6,0.2,0.01
"""

AIC_COLUMNS = ["aic_time(us)", "aic_total_cycles", "aic_cube_time(us)", "aic_cube_ratio", "aic_scalar_time(us)",
               "aic_scalar_ratio", "aic_mte1_time(us)", "aic_mte1_ratio", "aic_mte2_time(us)", "aic_mte2_ratio",
               "aic_fixpipe_time(us)", "aic_fixpipe_ratio", "aic_icache_miss_rate"]


def test_current_layout_maps_every_column_by_name():
    r = parse_pipe_utilization(CURRENT)
    assert r["layout"] == "per_block"
    assert r["block_dim"] == 3 and r["derived"] == ["block_dim"]
    assert r["missing_columns"] == []
    assert r["unknown_columns"] == AIC_COLUMNS + ["aiv_total_cycles", "aiv_icache_miss_rate"]
    assert r["blocks"][1] == {
        "block_id": 1, "sub_block_id": "vector0", "aiv_time_us": 14.0,
        "aiv_vec_time_us": 2.8, "aiv_vec_ratio": 0.2, "aiv_scalar_time_us": 5.6, "aiv_scalar_ratio": 0.4,
        "aiv_mte2_time_us": 12.6, "aiv_mte2_ratio": 0.9, "aiv_mte3_time_us": 4.2, "aiv_mte3_ratio": 0.3,
    }
    assert "task_duration_us" not in r  # that is OpBasicInfo.csv's


def test_profile_is_the_slowest_blocks_ratios_like_the_simulator():
    r = parse_pipe_utilization(CURRENT)
    assert profile_from_report(r) == {"vec": 0.2, "scalar": 0.4, "mte2": 0.9, "mte3": 0.3}
    # the same rule SimBackend.profile applies to a simulator report
    sim_report = {"blocks": [{"aiv_time_us": 1.0, "aiv_vec_ratio": 0.5},
                             {"aiv_time_us": 3.0, "aiv_vec_ratio": 0.1, "aiv_mte2_ratio": 0.7}]}
    assert profile_from_report(sim_report) == {"vec": 0.1, "scalar": 0.0, "mte2": 0.7, "mte3": 0.0}
    assert profile_from_report({"blocks": []}) == {"vec": 0.0, "scalar": 0.0, "mte2": 0.0, "mte3": 0.0}


def test_column_order_does_not_matter():
    lines = [line.split(",") for line in CURRENT.splitlines()]
    reordered = "\n".join(",".join(reversed(cells)) for cells in lines)
    assert parse_pipe_utilization(reordered)["blocks"] == parse_pipe_utilization(CURRENT)["blocks"]


def test_older_layout_times_without_ratios_and_unprefixed_names():
    # Older profiler output: unprefixed pipe names, times without units, ratios absent (derived from times).
    old = ("Block Id,aicore_time(us),total_cycles,vec_time,scalar_time,mte2_time,mte3_time\n"
           "0,20.0,36000,4.0,2.0,16.0,6.0\n"
           "1,10.0,18000,1.0,1.0,5.0,2.0\n")
    r = parse_pipe_utilization(old)
    assert r["unknown_columns"] == ["total_cycles"]
    assert r["missing_columns"] == []
    assert set(r["derived"]) == {"aiv_vec_ratio", "aiv_scalar_ratio", "aiv_mte2_ratio", "aiv_mte3_ratio",
                                 "block_dim"}
    b0 = r["blocks"][0]
    assert b0["aiv_time_us"] == 20.0 and b0["aiv_mte2_time_us"] == 16.0
    assert b0["aiv_mte2_ratio"] == pytest.approx(0.8) and b0["aiv_vec_ratio"] == pytest.approx(0.2)
    assert profile_from_report(r) == pytest.approx({"vec": 0.2, "scalar": 0.1, "mte2": 0.8, "mte3": 0.3})


def test_ratios_without_times_derive_the_times_and_percent_and_ms_units_scale():
    text = ("block_id,aiv_time(ms),aiv_vec_ratio(%),aiv_scalar_ratio,aiv_mte2_ratio,aiv_mte3_ratio\n"
            "0,0.05,25,12.5%,0.5,0.25\n")
    b = parse_pipe_utilization(text)["blocks"][0]
    assert b["aiv_time_us"] == pytest.approx(50.0)
    assert b["aiv_vec_ratio"] == pytest.approx(0.25) and b["aiv_scalar_ratio"] == pytest.approx(0.125)
    assert b["aiv_vec_time_us"] == pytest.approx(12.5) and b["aiv_mte3_time_us"] == pytest.approx(12.5)


def test_unknown_extra_columns_are_ignored_and_listed():
    lines = CURRENT.splitlines()
    extra = [lines[0] + ",aiv_vec_simt_vf_ratio,Future Column(KB)"] + [line + ",0.0,7" for line in lines[1:]]
    r = parse_pipe_utilization("\n".join(extra))
    assert r["unknown_columns"][-2:] == ["aiv_vec_simt_vf_ratio", "Future Column(KB)"]
    assert r["blocks"] == parse_pipe_utilization(CURRENT)["blocks"]


def test_a_missing_column_is_an_absent_key_and_is_listed():
    text = ("block_id,aiv_time(us),aiv_vec_ratio,aiv_scalar_ratio,aiv_mte2_ratio\n"
            "0,10.0,0.1,0.2,0.9\n")
    r = parse_pipe_utilization(text)
    assert "aiv_mte3_ratio" not in r["blocks"][0] and "aiv_mte3_time_us" not in r["blocks"][0]
    assert r["missing_columns"] == ["aiv_mte3_time(us)", "aiv_mte3_ratio"]
    assert profile_from_report(r)["mte3"] == 0.0


def test_bom_spaces_crlf_and_blank_lines():
    text = ("\ufeff block_id , AIV_TIME(us) ,aiv_vec_ratio , aiv_scalar_ratio,aiv_mte2_ratio,aiv_mte3_ratio,\r\n"
            " 0 , 12.5 , 0.1 ,0.5, 0.8 ,0.2,\r\n"
            "\r\n"
            "1,13.0,0.2,0.4,0.9,0.3,\r\n")
    r = parse_pipe_utilization(text)
    assert r["unknown_columns"] == []
    assert [b["block_id"] for b in r["blocks"]] == [0, 1]
    assert r["blocks"][0]["aiv_time_us"] == 12.5 and r["blocks"][0]["aiv_mte2_ratio"] == 0.8
    assert r["blocks"][0]["aiv_vec_time_us"] == pytest.approx(1.25)


def test_one_summary_row_with_per_launch_columns():
    # op_summary / kernel_details style: one line per launch, Task Duration and Block Dim beside the ratios.
    text = ('"Op Name","Task Duration(us)","Block Dim","aiv_time(us)","aiv_vec_ratio","aiv_scalar_ratio",'
            '"aiv_mte2_ratio","aiv_mte3_ratio"\n'
            '"add_custom","21.3","48","15.2","0.12","0.41","0.87","0.33"\n')
    r = parse_pipe_utilization(text)
    assert r["layout"] == "summary"
    assert r["task_duration_us"] == 21.3 and r["block_dim"] == 48
    assert r["unknown_columns"] == ["Op Name"]
    assert r["missing_columns"] == []  # block_id is not expected of a summary row
    assert profile_from_report(r) == {"vec": 0.12, "scalar": 0.41, "mte2": 0.87, "mte3": 0.33}


@pytest.mark.parametrize("text, reason", [
    ("", "empty file"),
    ("  \n\ufeff\n", "empty file"),
    ("\x00\x01PK\x03\x04", "binary data"),
    ("hello world\nthis is not a profile\n", "not a PipeUtilization CSV"),
    ("Op Name,Device Id\nadd,0\n", "not a PipeUtilization CSV"),
    ("block_id,aiv_time(us),aiv_vec_ratio\n", "no data rows"),
    ("block_id,aiv_time(us)\n0,12.5,3,4\n", "row 2 has 4 fields"),
    ("block_id,aiv_time(us)\n0,fast\n", "row 2, column 'aiv_time(us)': 'fast' is not a number"),
    ("aiv_time(parsecs)\n1\n", "unit 'parsecs'"),
    ("Task Duration(us),block_id,aiv_time(us)\n10,0,5\n12,1,6\n", "rows disagree"),
])
def test_malformed_files_raise_a_one_line_reason(text, reason):
    with pytest.raises(MsprofParseError) as info:
        parse_pipe_utilization(text)
    assert reason in info.value.reason
    assert "\n" not in str(info.value)
