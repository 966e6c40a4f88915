// Data rearrangement on the V pipe (issue 16): Gather, Gatherb, GatherMask, Transpose, Sort32, MrgSort,
// Interleave/DeInterleave. Each resolves its descriptor into the UB spans it really reads and writes (index and
// pattern tensors are bounds-checked before their values are used), hands them to pipe_op with a cost from the
// vector table, then moves the bytes. Semantics follow the asc-devkit API pages named at each function.
#include <algorithm>
#include <cstring>
#include <vector>

#include "numerics.h"
#include "state.h"

namespace tuner_sim {

namespace {

DType dt(ElemType t) { return static_cast<DType>(t); }
uint32_t esize(ElemType t) { return uint32_t(dtype_size(dt(t))); }
// A UB offset computed in 64 bits saturates (32-byte aligned) so the bounds check sees it outside every buffer.
uint32_t ub_off32(uint64_t v) { return v > 0xFFFFFFE0u ? 0xFFFFFFE0u : uint32_t(v); }

// The bounds check pipe_op makes, done early for a tensor whose values decide the other spans (offsets,
// patterns): those values must not be read from past its buffer.
void precheck(const UbSpan& s) {
    const BlockCtx& c = ctx();
    if (uint64_t(s.off) + s.bytes > s.buf_end || s.buf_end > c.ub.size()) {
        fault(FaultClass::OutOfBounds,
              "%s: %llu bytes from UB offset %u run past the end of its buffer by %llu bytes (buffer ends at %u)",
              s.operand, (unsigned long long)s.bytes, s.off,
              (unsigned long long)(uint64_t(s.off) + s.bytes - s.buf_end), s.buf_end);
    }
}

// Spans of single elements, adjacent ones merged, so that sync hazards are looked for on the bytes touched only.
struct SpanList {
    std::vector<UbSpan> spans;
    void add(uint64_t off, uint64_t bytes, uint32_t buf_end, Access a, const char* name) {
        if (bytes == 0) return;
        if (!spans.empty()) {
            UbSpan& last = spans.back();
            if (last.access == a && last.operand == name && last.buf_end == buf_end &&
                uint64_t(last.off) + last.bytes == off) {
                last.bytes += bytes;
                return;
            }
        }
        spans.push_back({ub_off32(off), bytes, buf_end, a, name});
    }
    void add(const UbSpan& s) { spans.push_back(s); }
};

struct Lanes128 {
    uint64_t lo, hi;
    bool test(uint32_t i) const { return i < 64 ? (lo >> i) & 1 : (hi >> (i - 64)) & 1; }
};
Lanes128 mask_lanes(bool bits, uint64_t hi, uint64_t lo, uint32_t lanes) {
    if (bits) return {lo, lanes > 64 ? hi : 0};
    const uint64_t k = std::min<uint64_t>(lo, lanes);
    return {k >= 64 ? ~0ull : ((1ull << k) - 1), k > 64 ? (k >= 128 ? ~0ull : ((1ull << (k - 64)) - 1)) : 0};
}

uint64_t repeats_of(uint64_t bytes) { return (bytes + 255) / 256; }

uint32_t load_u32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

}  // namespace

// ---- Gather / Gatherb ------------------------------------------------------------------------------------
// Gather (asc-devkit 离散与聚合/Gather.md): dst[i] = src[(srcBaseAddr + srcOffset[i]) / sizeof(T)], offsets in
// bytes; the mask form gathers lane i of repeat r from srcOffset[r * lanes + i] into dst + r * dstRepStride
// blocks + i. Gatherb (Gatherb(ISASI).md): block j of repeat r is the 32 bytes at src + offset[r * 8 + j].
// Cost (no class of its own in the cost table, so counted in UnarySimple repeats of 1 cycle): Gather at 3/16 cycle
// per element gathered (msKPP 910B measured ~24 cycles per 256 B of u16 and ~12 of u32, research/ascend_hw.md
// §2.3; the theory table's 5 elements/cycle agrees), Gatherb at 3 cycles per repeat (theory 42 u16 / 21 u32
// elements a cycle, §1.3).
void gather_exec(const GatherDesc& d) {
    BlockCtx& c = ctx();
    const uint32_t es = esize(d.type);
    check_ub_aligned(d.dst.off, "dst");
    check_ub_aligned(d.src.off, "src");
    check_ub_aligned(d.offset.off, d.by_block ? "offset" : "srcOffset");
    uint8_t* ub = c.ub.data();
    SpanList reads, writes;
    struct Move {
        uint64_t to, from, bytes;
    };
    std::vector<Move> moves;
    uint64_t cost_repeats = 0;  // UnarySimple repeats (1 cycle each)

    if (d.by_block) {
        const uint32_t blk = d.dst_blk_stride == 0 ? 1 : d.dst_blk_stride;
        const UbSpan idx{d.offset.off, uint64_t(d.repeat) * 8 * 4, d.offset.buf_end, Access::Read, "offset"};
        precheck(idx);
        reads.add(idx);
        for (uint32_t r = 0; r < d.repeat; ++r) {
            for (uint32_t j = 0; j < 8; ++j) {
                const uint32_t off = load_u32(ub + d.offset.off + (uint64_t(r) * 8 + j) * 4);
                if (off % 32 != 0) {
                    fault(FaultClass::Misaligned,
                          "%s: offset[%u] = %u bytes is not a multiple of 32 (each gathered block must start on a "
                          "32-byte boundary)",
                          d.api, r * 8 + j, off);
                }
                const uint64_t from = uint64_t(d.src.off) + off;
                const uint64_t to = uint64_t(d.dst.off) + (uint64_t(r) * d.dst_rep_stride + uint64_t(j) * blk) * 32;
                reads.add(from, 32, d.src.buf_end, Access::Read, "src");
                writes.add(to, 32, d.dst.buf_end, Access::Write, "dst");
                moves.push_back({to, from, 32});
            }
        }
        cost_repeats = uint64_t(d.repeat) * 3;
    } else {
        const uint32_t lanes = 256 / es;
        auto one = [&](uint64_t k, uint64_t to) {
            const uint64_t off = uint64_t(d.base_addr) + load_u32(ub + d.offset.off + k * 4);
            if (off % es != 0) {
                fault(FaultClass::Misaligned,
                      "%s: srcBaseAddr + srcOffset[%llu] = %llu bytes is not a multiple of the element size %u",
                      d.api, (unsigned long long)k, (unsigned long long)off, es);
            }
            reads.add(uint64_t(d.src.off) + off, es, d.src.buf_end, Access::Read, "src");
            writes.add(to, es, d.dst.buf_end, Access::Write, "dst");
            moves.push_back({to, uint64_t(d.src.off) + off, es});
        };
        if (d.count_form) {
            const UbSpan idx{d.offset.off, d.count * 4, d.offset.buf_end, Access::Read, "srcOffset"};
            precheck(idx);
            reads.add(idx);
            for (uint64_t i = 0; i < d.count; ++i) one(i, uint64_t(d.dst.off) + i * es);
            cost_repeats = (d.count * 3 + 15) / 16;
        } else {
            const Lanes128 m = mask_lanes(d.mask_bits, d.mask_hi, d.mask_lo, lanes);
            uint32_t last = 0;
            for (uint32_t i = 0; i < lanes; ++i) {
                if (m.test(i)) last = i + 1;
            }
            const uint64_t n_idx = d.repeat && last ? uint64_t(d.repeat - 1) * lanes + last : 0;
            const UbSpan idx{d.offset.off, n_idx * 4, d.offset.buf_end, Access::Read, "srcOffset"};
            precheck(idx);
            reads.add(idx);
            for (uint32_t r = 0; r < d.repeat; ++r) {
                for (uint32_t i = 0; i < lanes; ++i) {
                    if (m.test(i)) one(uint64_t(r) * lanes + i, d.dst.off + uint64_t(r) * d.dst_rep_stride * 32 + i * es);
                }
            }
            cost_repeats = (uint64_t(d.repeat) * lanes * 3 + 15) / 16;
        }
    }
    std::vector<UbSpan> spans = reads.spans;
    spans.insert(spans.end(), writes.spans.begin(), writes.spans.end());
    pipe_op(Pipe::V, vec_cycles(InstrClass::UnarySimple, d.type, cost_repeats) + mask_cycles(), spans.data(),
            int(spans.size()), nullptr, 0);
    // Sources are read before any destination is written (the API forbids src and dst sharing memory).
    std::vector<uint8_t> staged;
    for (const Move& mv : moves) staged.insert(staged.end(), ub + mv.from, ub + mv.from + mv.bytes);
    uint64_t at = 0;
    for (const Move& mv : moves) {
        std::memcpy(ub + mv.to, staged.data() + at, mv.bytes);
        at += mv.bytes;
    }
}

// ---- GatherMask ------------------------------------------------------------------------------------------
// asc-devkit 比较与选择/GatherMask.md: the elements of each repeat whose gather-mask bit is 1 are packed, in
// order, into dst; rsvdCnt is their number. Built-in patterns 1..7 (1: even lanes, 2: odd lanes, 3..6: lane
// 0/1/2/3 of every four, 7: all); a user pattern is read bit by bit (LSB first) from src1Pattern, each repeat's
// bits starting src1RepeatStride blocks after the previous one's. Normal mode: a repeat is 256 bytes of src0;
// counter mode (reduceMode true, A2/A3/950 "配置方式一"): a repeat is `mask` elements, repeatTimes repeats.
// Cost: 14 cycles per 256 bytes of src0 read, charged as two ReduceRepeat-class repeats (msKPP 910B measured
// VREDUCEV2, the GatherMask instruction, at ~18 B/cycle, research/ascend_hw.md §2.3; the theory table says 2).
uint64_t gather_mask_exec(const GatherMaskDesc& d) {
    BlockCtx& c = ctx();
    const uint32_t es = esize(d.type);
    const uint32_t per_block = 32 / es;
    check_ub_aligned(d.dst.off, "dst");
    check_ub_aligned(d.src0.off, "src0");
    if (d.builtin == 0) check_ub_aligned(d.pattern.off, "src1Pattern");
    const bool family_310p = std::strcmp(soc_config.family, "310P") == 0;
    if (d.builtin == 7 && family_310p) {
        fault(FaultClass::Unsupported, "%s: built-in pattern 7 is not one of 1..6 on %s", d.api, soc_config.name);
    }
    if (d.counter && family_310p) {
        fault(FaultClass::Unsupported,
              "%s: counter mode (reduceMode = true) with mask elements per repeat is the A2/A3 behaviour; %s counts "
              "mask in total, which the simulator does not model",
              d.api, soc_config.name);
    }
    const uint64_t elems = d.counter ? d.mask : 256 / es;
    const uint32_t R = d.repeat;
    uint8_t* ub = c.ub.data();
    SpanList spans;
    if (d.builtin == 0 && R > 0 && elems > 0) {
        const UbSpan pat{d.pattern.off, uint64_t(R - 1) * d.src1_rep_stride * 32 + (elems + 7) / 8, d.pattern.buf_end,
                         Access::Read, "src1Pattern"};
        precheck(pat);
        spans.add(pat);
    }
    auto bit = [&](uint32_t r, uint64_t k) -> bool {
        switch (d.builtin) {
            case 0: {
                const uint8_t* p = ub + d.pattern.off + uint64_t(r) * d.src1_rep_stride * 32;
                return (p[k / 8] >> (k % 8)) & 1;
            }
            case 1: return k % 2 == 0;
            case 2: return k % 2 == 1;
            case 7: return true;
            default: return k % 4 == uint64_t(d.builtin - 3);
        }
    };
    auto src_at = [&](uint32_t r, uint64_t k) {
        return uint64_t(d.src0.off) + (uint64_t(r) * d.src0_rep_stride + (k / per_block) * d.src0_blk_stride) * 32 +
               (k % per_block) * es;
    };
    std::vector<uint64_t> picked;
    for (uint32_t r = 0; r < R; ++r) {
        for (uint64_t k = 0; k < elems; ++k) {
            if (bit(r, k)) picked.push_back(src_at(r, k));
        }
    }
    if (R > 0 && elems > 0) {
        const uint64_t blocks = (elems + per_block - 1) / per_block;
        spans.add({d.src0.off,
                   (uint64_t(R - 1) * d.src0_rep_stride + (blocks - 1) * d.src0_blk_stride) * 32 + 32, d.src0.buf_end,
                   Access::Read, "src0"});
    }
    const uint64_t kept = picked.size();
    spans.add({d.dst.off, kept * es, d.dst.buf_end, Access::Write, "dst"});
    const uint64_t read_bytes = uint64_t(R) * elems * es;
    pipe_op(Pipe::V, vec_cycles(InstrClass::ReduceRepeat, d.type, 2 * repeats_of(read_bytes)) + mask_cycles(),
            spans.spans.data(), int(spans.spans.size()), nullptr, 0);
    std::vector<uint8_t> staged(kept * es);
    for (uint64_t i = 0; i < kept; ++i) std::memcpy(staged.data() + i * es, ub + picked[i], es);
    if (kept) std::memcpy(ub + d.dst.off, staged.data(), staged.size());
    return kept;
}

// ---- Transpose ---------------------------------------------------------------------------------------------
// asc-devkit 数据排布转换/Transpose.md: the plain form transposes one 16x16 matrix of 2-byte elements (src and
// dst may be the same tensor); TransposeParamsExt converts [N,C,H,W] <-> [N,H,W,C] through sharedTmpBuffer,
// whose minimum size the page gives: (C + 2) * h0 * w0 * sizeof(T) for NCHW2NHWC, (2C + 1) * h0 * w0 * sizeof(T)
// for NHWC2NCHW (h0 = 32 for 1-byte types, else 16; w0 = 32 / sizeof(T)); the whole minimum is marked written.
// Cost: UnarySimple repeats (1 cycle per 256 bytes: the theory table's Transpose rate, research/ascend_hw.md
// §1.3) over the bytes moved; twice for the NCHW forms, assumed (the data goes through the buffer).
void transpose_exec(const TransposeDesc& d) {
    BlockCtx& c = ctx();
    const uint32_t es = esize(d.type);
    check_ub_aligned(d.dst.off, "dst");
    check_ub_aligned(d.src.off, "src");
    uint8_t* ub = c.ub.data();
    if (d.kind == TransposeKind::B16) {
        UbSpan spans[2] = {{d.src.off, 512, d.src.buf_end, Access::Read, "src"},
                           {d.dst.off, 512, d.dst.buf_end, Access::Write, "dst"}};
        pipe_op(Pipe::V, vec_cycles(InstrClass::UnarySimple, d.type, 2) + mask_cycles(), spans, 2, nullptr, 0);
        uint8_t m[512];
        std::memcpy(m, ub + d.src.off, 512);
        for (int i = 0; i < 16; ++i) {
            for (int j = 0; j < 16; ++j) std::memcpy(ub + d.dst.off + (j * 16 + i) * 2, m + (i * 16 + j) * 2, 2);
        }
        return;
    }
    const uint64_t N = d.n, C = d.c, HW = uint64_t(d.h) * d.w;
    if ((HW * es) % 32 != 0) {
        fault(FaultClass::Misaligned, "%s: hSize * wSize * sizeof(T) = %llu bytes is not a multiple of 32", d.api,
              (unsigned long long)(HW * es));
    }
    const uint64_t total = N * C * HW;
    if (total == 0) {
        pipe_op(Pipe::V, 0, nullptr, 0, nullptr, 0);
        return;
    }
    const uint64_t h0 = es == 1 ? 32 : 16, w0 = 32 / es;
    const uint64_t tmp_need = (d.kind == TransposeKind::Nchw2Nhwc ? C + 2 : 2 * C + 1) * h0 * w0 * es;
    std::vector<UbSpan> spans = {{d.src.off, total * es, d.src.buf_end, Access::Read, "src"},
                                 {d.dst.off, total * es, d.dst.buf_end, Access::Write, "dst"}};
    const bool needs_tmp = std::strcmp(soc_config.family, "310P") != 0;
    if (needs_tmp) {
        if (!d.has_tmp || d.tmp_bytes < tmp_need) {
            fault(FaultClass::OutOfBounds,
                  "%s: sharedTmpBuffer holds %u bytes; this transpose needs at least %llu (asc-devkit Transpose.md)",
                  d.api, d.has_tmp ? d.tmp_bytes : 0u, (unsigned long long)tmp_need);
        }
        check_ub_aligned(d.tmp.off, "sharedTmpBuffer");
        spans.push_back({d.tmp.off, tmp_need, d.tmp.buf_end, Access::Write, "sharedTmpBuffer"});
    }
    pipe_op(Pipe::V, vec_cycles(InstrClass::UnarySimple, d.type, 2 * repeats_of(total * es)) + mask_cycles(),
            spans.data(), int(spans.size()), nullptr, 0);
    std::vector<uint8_t> in(ub + d.src.off, ub + d.src.off + total * es);
    for (uint64_t n = 0; n < N; ++n) {
        for (uint64_t ch = 0; ch < C; ++ch) {
            for (uint64_t p = 0; p < HW; ++p) {
                const uint64_t nchw = (n * C + ch) * HW + p, nhwc = (n * HW + p) * C + ch;
                const uint64_t from = d.kind == TransposeKind::Nchw2Nhwc ? nchw : nhwc;
                const uint64_t to = d.kind == TransposeKind::Nchw2Nhwc ? nhwc : nchw;
                std::memcpy(ub + d.dst.off + to * es, in.data() + from * es, es);
            }
        }
    }
}

// ---- TransDataTo5HD (数据排布转换/TransDataTo5HD.md and the transpose example's NCHW -> NC1HWC0 golden) ----------
// 2-byte elements: repeat r transposes the 16 x 16 matrix of the 16 source blocks (row i at srcList[i] +
// r * srcRepStride blocks) into the 16 destination blocks. 4-byte elements (asc_transto5hd.md, b32): each block
// holds 8, and for each position j the 16 source blocks' element j form two destination blocks, dstList[2j]
// (from source blocks 0-7) and dstList[2j + 1] (from blocks 8-15). The page: with repeatTimes 1 the blocks start
// one stride after the lists (set the stride to 0 to use the lists' own addresses). Cost: the theory table's
// Transpose rate for b16, 128 elements a cycle (research/ascend_hw.md §1.3): 2 UnarySimple repeats a repeat;
// b32 moves the same 512 bytes a repeat and is assumed to cost the same.
void trans_5hd_exec(const char* api, ElemType t, const uint32_t dst_off[16], const uint32_t dst_end[16],
                    const uint32_t src_off[16], const uint32_t src_end[16], uint32_t repeat, uint32_t dst_rep_stride,
                    uint32_t src_rep_stride) {
    BlockCtx& c = ctx();
    const uint32_t ub_size = uint32_t(c.ub.size());
    auto end_of = [&](uint32_t e) { return e ? e : ub_size; };  // 0: an address given as a value, bounded by UB
    for (int i = 0; i < 16; ++i) {
        check_ub_aligned(dst_off[i], "dstList");
        check_ub_aligned(src_off[i], "srcList");
    }
    auto block_at = [&](uint32_t base, uint32_t r, uint32_t stride) {
        return uint64_t(base) + (uint64_t(repeat == 1 ? 1 : r) * stride) * 32;
    };
    SpanList reads, writes;
    for (uint32_t r = 0; r < repeat; ++r) {
        for (int i = 0; i < 16; ++i) {
            reads.add(block_at(src_off[i], r, src_rep_stride), 32, end_of(src_end[i]), Access::Read, "srcList");
            writes.add(block_at(dst_off[i], r, dst_rep_stride), 32, end_of(dst_end[i]), Access::Write, "dstList");
        }
    }
    std::vector<UbSpan> spans = reads.spans;
    spans.insert(spans.end(), writes.spans.begin(), writes.spans.end());
    pipe_op(Pipe::V, vec_cycles(InstrClass::UnarySimple, t, uint64_t(repeat) * 2), spans.data(), int(spans.size()),
            nullptr, 0);
    uint8_t* ub = c.ub.data();
    const uint32_t es = esize(t);
    for (uint32_t r = 0; r < repeat; ++r) {
        uint8_t m[16][32];
        for (int i = 0; i < 16; ++i) std::memcpy(m[i], ub + block_at(src_off[i], r, src_rep_stride), 32);
        for (int k = 0; k < 16; ++k) {  // destination block k: position j of 16 / per-block source blocks
            uint8_t* out = ub + block_at(dst_off[k], r, dst_rep_stride);
            const int per = int(32 / es), j = es == 2 ? k : k / 2, first = es == 2 ? 0 : (k % 2) * per;
            for (int i = 0; i < per; ++i) std::memcpy(out + i * es, m[first + i] + j * es, es);
        }
    }
    (void)api;
}

// ---- Sort32 / MrgSort --------------------------------------------------------------------------------------
// asc-devkit 排序组合（ISASI）/Sort32.md: each repeat sorts 32 scores (src0, 32 elements on) with their uint32
// indices (src1, 128 bytes on) by score, descending, into 32 entries of 8 bytes (dst, 256 bytes on): the score
// in the low bytes (a half score in the low 2, the next 2 reserved, written 0 here), the index in the high 4.
// Equal scores keep their input order. Cost: 16 cycles a repeat (the theory table's 2 elements a cycle,
// research/ascend_hw.md §1.3), charged as 16 UnarySimple repeats.
void sort32_exec(const char* api, ElemType t, const VecOperand& dst, const VecOperand& score, const VecOperand& index,
                 uint32_t repeat) {
    BlockCtx& c = ctx();
    const uint32_t es = esize(t);
    check_ub_aligned(dst.off, "dst");
    check_ub_aligned(score.off, "src0");
    check_ub_aligned(index.off, "src1");
    UbSpan spans[3] = {{score.off, uint64_t(repeat) * 32 * es, score.buf_end, Access::Read, "src0"},
                       {index.off, uint64_t(repeat) * 128, index.buf_end, Access::Read, "src1"},
                       {dst.off, uint64_t(repeat) * 256, dst.buf_end, Access::Write, "dst"}};
    pipe_op(Pipe::V, vec_cycles(InstrClass::UnarySimple, t, uint64_t(repeat) * 16), spans, 3, nullptr, 0);
    uint8_t* ub = c.ub.data();
    for (uint32_t r = 0; r < repeat; ++r) {
        const uint8_t* s = ub + score.off + uint64_t(r) * 32 * es;
        const uint8_t* ix = ub + index.off + uint64_t(r) * 128;
        struct Entry {
            double score;
            uint8_t raw[4];
            uint32_t index;
        };
        std::vector<Entry> e(32);
        for (int i = 0; i < 32; ++i) {
            e[i].score = load_element(dt(t), s + i * es);
            std::memset(e[i].raw, 0, 4);
            std::memcpy(e[i].raw, s + i * es, es);
            e[i].index = load_u32(ix + i * 4);
        }
        std::stable_sort(e.begin(), e.end(), [](const Entry& a, const Entry& b) { return a.score > b.score; });
        uint8_t* out = ub + dst.off + uint64_t(r) * 256;
        for (int i = 0; i < 32; ++i) {
            std::memcpy(out + i * 8, e[i].raw, 4);
            std::memcpy(out + i * 8 + 4, &e[i].index, 4);
        }
    }
}

namespace {
thread_local uint16_t mrg_counts[4] = {0, 0, 0, 0};
}

// asc-devkit 排序组合（ISASI）/MrgSort.md: merges up to 4 queues of 8-byte (score, index) entries, each sorted
// by score descending, into one (validBit 3/7/15: the first 2/3/4 queues); equal scores take the lower-numbered
// queue first. ifExhaustedSuspension: stop as soon as one queue runs out (GetMrgSortResult then says how many
// entries each queue gave). repeatTimes > 1 needs 4 contiguous queues of one length, no suspension and validBit
// 15; each repeat then merges the next 4 queues. Cost: half a cycle per entry written (theory 2 elements a cycle;
// msKPP measured ~15.6 B/cycle, research/ascend_hw.md §1.3, §2.3), charged as UnarySimple repeats.
void mrg_sort_exec(const MrgSortDesc& d) {
    BlockCtx& c = ctx();
    const uint32_t es = esize(d.type);
    const uint64_t eb = d.entry_bytes ? d.entry_bytes : 8;  // bytes per entry
    // MrgSort: dst on 32 bytes, sources on 8 (MrgSort.md); MrgSort4: both on 16 (half) / 32 (float) (MrgSort4.md).
    const uint32_t src_align = d.entry_bytes ? uint32_t(eb) : 8;
    if (d.entry_bytes) {
        if (d.dst.off % src_align != 0) {
            fault(FaultClass::Misaligned, "%s: dst starts at UB offset %u, not on %u bytes", d.api, d.dst.off,
                  src_align);
        }
    } else {
        check_ub_aligned(d.dst.off, "dst");
    }
    int queues = 0;
    switch (d.valid_bits) {
        case 3: queues = 2; break;
        case 7: queues = 3; break;
        case 15: queues = 4; break;
        default:
            fault(FaultClass::Unsupported, "%s: validBit %u is not 3, 7 or 15", d.api, unsigned(d.valid_bits));
    }
    static const char* names[4] = {"src1", "src2", "src3", "src4"};
    for (int q = 0; q < queues; ++q) {
        if (d.src[q].off % src_align != 0) {
            fault(FaultClass::Misaligned, "%s: %s starts at UB offset %u, not on %u bytes", d.api, names[q],
                  d.src[q].off, src_align);
        }
    }
    if (d.repeat > 1) {
        bool ok = queues == 4 && !d.exhausted_suspension;
        for (int q = 1; q < 4 && ok; ++q) {
            ok = d.lengths[q] == d.lengths[0] && d.src[q].off == d.src[0].off + uint64_t(q) * d.lengths[0] * eb;
        }
        if (!ok) {
            fault(FaultClass::Unsupported,
                  "%s: repeatTimes %u needs 4 contiguous queues of one length, ifExhaustedSuspension false and validBit "
                  "15 (asc-devkit MrgSort.md)",
                  d.api, d.repeat);
        }
    }
    uint64_t per_repeat = 0;
    for (int q = 0; q < queues; ++q) per_repeat += d.lengths[q];
    std::vector<UbSpan> spans;
    for (int q = 0; q < queues; ++q) {
        const uint64_t bytes = d.repeat ? (uint64_t(d.repeat - 1) * per_repeat + d.lengths[q]) * eb : 0;
        spans.push_back({d.src[q].off, bytes, d.src[q].buf_end, Access::Read, names[q]});
    }
    // With suspension the merge may stop early; the full length is marked written (an upper bound).
    spans.push_back({d.dst.off, uint64_t(d.repeat) * per_repeat * eb, d.dst.buf_end, Access::Write, "dst"});
    pipe_op(Pipe::V, vec_cycles(InstrClass::UnarySimple, d.type, (uint64_t(d.repeat) * per_repeat + 1) / 2),
            spans.data(), int(spans.size()), nullptr, 0);
    uint8_t* ub = c.ub.data();
    for (int q = 0; q < 4; ++q) mrg_counts[q] = 0;
    for (uint32_t r = 0; r < d.repeat; ++r) {
        std::vector<std::vector<uint8_t>> in(queues);
        for (int q = 0; q < queues; ++q) {
            const uint8_t* p = ub + d.src[q].off + uint64_t(r) * per_repeat * eb;
            in[q].assign(p, p + uint64_t(d.lengths[q]) * eb);
        }
        uint64_t pos[4] = {0, 0, 0, 0};
        uint8_t* out = ub + d.dst.off + uint64_t(r) * per_repeat * eb;
        uint64_t written = 0;
        while (true) {
            int best = -1;
            double best_score = 0;
            bool exhausted = false;
            for (int q = 0; q < queues; ++q) {
                if (pos[q] >= d.lengths[q]) {
                    exhausted = true;
                    continue;
                }
                const double s = load_element(dt(d.type), in[q].data() + pos[q] * eb + d.score_off);
                if (best < 0 || s > best_score) {
                    best = q;
                    best_score = s;
                }
            }
            if (best < 0 || (exhausted && d.exhausted_suspension)) break;
            std::memcpy(out + written * eb, in[best].data() + pos[best] * eb, eb);
            ++pos[best];
            ++written;
        }
        for (int q = 0; q < queues; ++q) mrg_counts[q] = uint16_t(pos[q]);
    }
    (void)es;
}

void mrg_sort_result(uint16_t counts[4]) {
    for (int q = 0; q < 4; ++q) counts[q] = mrg_counts[q];
}

// ---- region proposals (310P AI Core) ---------------------------------------------------------------------
// asc-devkit 排序组合（ISASI）/ProposalConcat.md, ProposalExtract.md, RpSort16.md: a proposal is 8 elements
// (16 bytes of half, 32 of float), [x1, y1, x2, y2, score, label, reserved, reserved]; each repeat handles 16
// proposals and 16 elements. RpSort16 puts higher scores first, equal scores in input order.
// Cost (no published rate for these): Concat/Extract one UnarySimple repeat per 256 bytes of proposals touched;
// RpSort16 8 cycles a repeat, assumed at Sort32's 2 elements a cycle (research/ascend_hw.md §1.3).
void proposal_exec(const char* api, ProposalOp op, ElemType t, const VecOperand& dst, const VecOperand& src,
                   uint32_t repeat, int32_t mode) {
    BlockCtx& c = ctx();
    const uint32_t es = esize(t);
    const uint64_t pb = 8 * es;  // bytes per proposal
    check_ub_aligned(dst.off, "dst");
    check_ub_aligned(src.off, "src");
    if (op != ProposalOp::Sort16 && (mode < 0 || mode > 5)) {
        fault(FaultClass::Unsupported, "%s: modeNumber %d is not in [0, 5]", api, mode);
    }
    const uint64_t n = uint64_t(repeat) * 16;
    const uint64_t src_bytes = op == ProposalOp::Concat ? n * es : n * pb;
    const uint64_t dst_bytes = op == ProposalOp::Extract ? n * es : n * pb;
    std::vector<UbSpan> spans = {{src.off, src_bytes, src.buf_end, Access::Read, "src"}};
    // Concat writes one element of each proposal; the proposals' span is marked written (an upper bound).
    spans.push_back({dst.off, dst_bytes, dst.buf_end, Access::Write, "dst"});
    const uint64_t cost = op == ProposalOp::Sort16 ? uint64_t(repeat) * 8 : repeats_of(n * pb);
    pipe_op(Pipe::V, vec_cycles(InstrClass::UnarySimple, t, cost), spans.data(), int(spans.size()), nullptr, 0);
    uint8_t* ub = c.ub.data();
    if (op == ProposalOp::Concat) {
        std::vector<uint8_t> in(ub + src.off, ub + src.off + n * es);
        for (uint64_t i = 0; i < n; ++i) std::memcpy(ub + dst.off + i * pb + uint64_t(mode) * es, in.data() + i * es, es);
        return;
    }
    if (op == ProposalOp::Extract) {
        std::vector<uint8_t> in(ub + src.off, ub + src.off + n * pb);
        for (uint64_t i = 0; i < n; ++i) std::memcpy(ub + dst.off + i * es, in.data() + i * pb + uint64_t(mode) * es, es);
        return;
    }
    for (uint32_t r = 0; r < repeat; ++r) {
        std::vector<uint8_t> in(ub + src.off + uint64_t(r) * 16 * pb, ub + src.off + uint64_t(r + 1) * 16 * pb);
        std::vector<int> order(16);
        for (int i = 0; i < 16; ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
            return load_element(dt(t), in.data() + a * pb + 4 * es) > load_element(dt(t), in.data() + b * pb + 4 * es);
        });
        for (int i = 0; i < 16; ++i) {
            std::memcpy(ub + dst.off + (uint64_t(r) * 16 + i) * pb, in.data() + order[i] * pb, pb);
        }
    }
}

// ---- Interleave / DeInterleave (Ascend 950 only) -----------------------------------------------------------
// asc-devkit 数据重排（ISASI）/Interleave.md, DeInterleave.md and the interleave_pair example's golden data:
// Interleave writes src0[0], src1[0], src0[1], src1[1], ... across dst0 then dst1; DeInterleave writes the even
// elements of src0||src1 to dst0 and the odd ones to dst1 (one-input form: of src0 alone, srcCount elements).
// Cost: assumed UnarySimple repeats over the bytes written.
void interleave_exec(const char* api, bool de, ElemType t, const VecOperand& dst0, const VecOperand& dst1,
                     const VecOperand& src0, const VecOperand* src1, uint64_t count) {
    BlockCtx& c = ctx();
    const uint32_t es = esize(t);
    if (count % 2 != 0) fault(FaultClass::Unsupported, "%s: count %llu is not even", api, (unsigned long long)count);
    check_ub_aligned(dst0.off, "dst0");
    check_ub_aligned(dst1.off, "dst1");
    check_ub_aligned(src0.off, src1 ? "src0" : "src");
    if (src1) check_ub_aligned(src1->off, "src1");
    const uint64_t half = src1 ? count : count / 2;  // elements written to each destination
    std::vector<UbSpan> spans = {{src0.off, count * es, src0.buf_end, Access::Read, src1 ? "src0" : "src"}};
    if (src1) spans.push_back({src1->off, count * es, src1->buf_end, Access::Read, "src1"});
    spans.push_back({dst0.off, half * es, dst0.buf_end, Access::Write, "dst0"});
    spans.push_back({dst1.off, half * es, dst1.buf_end, Access::Write, "dst1"});
    pipe_op(Pipe::V, vec_cycles(InstrClass::UnarySimple, t, repeats_of(2 * half * es)), spans.data(), int(spans.size()),
            nullptr, 0);
    uint8_t* ub = c.ub.data();
    const uint64_t total = 2 * half;
    std::vector<uint8_t> all(total * es);
    std::memcpy(all.data(), ub + src0.off, (src1 ? count : total) * es);
    if (src1) std::memcpy(all.data() + count * es, ub + src1->off, count * es);
    std::vector<uint8_t> out(total * es);
    for (uint64_t i = 0; i < total; ++i) {
        // Interleave: output element i is element i/2 of src0 (even i) or src1 (odd i) -> input index.
        const uint64_t from = de ? (i < half ? 2 * i : 2 * (i - half) + 1) : (i % 2 == 0 ? i / 2 : half + i / 2);
        std::memcpy(out.data() + i * es, all.data() + from * es, es);
    }
    std::memcpy(ub + dst0.off, out.data(), half * es);
    std::memcpy(ub + dst1.off, out.data() + half * es, half * es);
}

}  // namespace tuner_sim
