// Data movement and vector instructions: each resolves its descriptor into UB/GM byte spans (checked and
// recorded by pipe_op), charges the cost model, then computes with the numerics library.
#include <algorithm>
#include <array>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "../include/tuner_sim/int4.h"
#include "numerics.h"
#include "state.h"

namespace tuner_sim {

namespace {

DType dt(ElemType t) { return static_cast<DType>(t); }
uint32_t esize(ElemType t) { return uint32_t(dtype_size(dt(t))); }
const char* round_name(uint8_t mode) {
    static const char* names[] = {"CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC",
                                  "CAST_ODD"};
    return mode < 7 ? names[mode] : "UNKNOWN";
}
uint64_t round32(uint64_t v) { return (v + 31) / 32 * 32; }
// A UB offset computed in 64 bits: one past 4 GiB saturates (still 32-byte aligned) so the bounds check
// sees it outside every buffer instead of wrapping back into UB.
uint32_t ub_off32(uint64_t v) { return v > 0xFFFFFFE0u ? 0xFFFFFFE0u : uint32_t(v); }

struct Mask128 {
    uint64_t lo, hi;
    bool test(uint32_t i) const { return i < 64 ? (lo >> i) & 1 : (hi >> (i - 64)) & 1; }
};

Mask128 first_lanes(uint64_t k, uint32_t lanes) {
    k = std::min<uint64_t>(k, lanes);
    Mask128 m{0, 0};
    m.lo = k >= 64 ? ~0ull : ((1ull << k) - 1);
    m.hi = k > 64 ? (k >= 128 ? ~0ull : ((1ull << (k - 64)) - 1)) : 0;
    return m;
}

// Lane masks of a repeat-form instruction: one per repeat (counter mode makes the last one partial).
struct RepeatPlan {
    uint32_t repeats = 0;
    Mask128 mask{0, 0};
    uint64_t counter_total = 0;  // > 0: counter mode, `counter_total` lanes in all
    Mask128 for_repeat(uint32_t r, uint32_t lanes) const {
        if (counter_total == 0) return mask;
        const uint64_t done = uint64_t(r) * lanes;
        return first_lanes(counter_total > done ? counter_total - done : 0, lanes);
    }
};

RepeatPlan plan_repeats(bool mask_bits, uint64_t hi, uint64_t lo, bool use_register, uint32_t repeat, uint32_t lanes) {
    RepeatPlan p;
    p.repeats = repeat;
    if (use_register) {
        const MaskState& m = ctx().mask;
        if (m.counter) {
            // Rounded up without overflow, and saturated: a huge (e.g. negative) length must reach the
            // bounds check as a huge extent, not wrap to a few repeats or none.
            p.counter_total = m.lo;
            p.repeats = uint32_t(std::min<uint64_t>(m.lo / lanes + (m.lo % lanes != 0), UINT32_MAX));
            return p;
        }
        p.mask = {m.lo, lanes > 64 ? m.hi : 0};
        return p;
    }
    p.mask = mask_bits ? Mask128{lo, lanes > 64 ? hi : 0} : first_lanes(lo, lanes);
    return p;
}

// Byte offset of lane `lane` of repeat `r` for an operand with element size `es`.
uint64_t lane_offset(const VecOperand& o, uint32_t es, uint32_t r, uint32_t lane) {
    const uint32_t per_block = 32 / es;
    return uint64_t(o.off) + (uint64_t(r) * o.rep_stride + uint64_t(lane / per_block) * o.blk_stride) * 32 +
           uint64_t(lane % per_block) * es;
}

// Bytes from the operand start to the end of the last block a repeat-form instruction touches, each repeat
// reaching `lanes` lanes.
uint64_t repeat_extent(const VecOperand& o, uint32_t es, uint32_t repeats, uint32_t lanes) {
    if (repeats == 0 || lanes == 0) return 0;
    const uint32_t blocks = std::max<uint32_t>(1, (lanes * es + 31) / 32);
    return (uint64_t(repeats - 1) * o.rep_stride + uint64_t(blocks - 1) * o.blk_stride) * 32 + 32;
}

// Lanes up to the highest one a repeat's mask enables: the blocks past it are not read or written.
uint32_t mask_reach(const Mask128& m, uint32_t lanes) {
    if (lanes > 128) return lanes;  // 8-bit lanes: the mask does not name each one
    if (m.hi) return std::min<uint32_t>(lanes, 128 - uint32_t(__builtin_clzll(m.hi)));
    return m.lo ? std::min<uint32_t>(lanes, 64 - uint32_t(__builtin_clzll(m.lo))) : 0;
}

// repeat_extent under a plan's masks: the repeats before the last reach as far as their mask does (all of them
// alike, or whole repeats in counter mode), the last as far as its own.
uint64_t masked_extent(const VecOperand& o, uint32_t es, const RepeatPlan& p, uint32_t lanes) {
    if (p.repeats == 0) return 0;
    const uint32_t last = p.repeats - 1;
    uint64_t end = last ? repeat_extent(o, es, last, mask_reach(p.for_repeat(0, lanes), lanes)) : 0;
    const uint32_t tail = mask_reach(p.for_repeat(last, lanes), lanes);
    if (tail) {
        VecOperand from_last = o;
        from_last.off = 0;
        end = std::max(end, uint64_t(last) * o.rep_stride * 32 + repeat_extent(from_last, es, 1, tail));
    }
    return end;
}

void set_bit(uint8_t* bits, uint64_t i, bool v) {
    if (v) bits[i / 8] |= uint8_t(1u << (i % 8));
    else bits[i / 8] &= uint8_t(~(1u << (i % 8)));
}
bool get_bit(const uint8_t* bits, uint64_t i) { return (bits[i / 8] >> (i % 8)) & 1; }

}  // namespace

// ---- DataCopy / DataCopyPad ------------------------------------------------------------------------------

void data_copy(const CopyDesc& d) {
    BlockCtx& c = ctx();
    const Pipe pipe = d.dir == CopyDir::GmToUb ? Pipe::MTE2 : d.dir == CopyDir::UbToGm ? Pipe::MTE3 : Pipe::V;
    if (d.block_count == 0 || d.block_bytes == 0) {
        pipe_op(pipe, copy_cycles(d.dir, 0, 1, d.gm, 0), nullptr, 0, nullptr, 0);
        return;
    }
    if (d.require_32b_blocks && d.block_bytes % 32 != 0) {
        fault(FaultClass::Misaligned,
              "%s moves %u elements of %u bytes = %u bytes, not a multiple of 32 bytes; the NPU silently drops the "
              "last %u bytes (use DataCopyPad for unaligned lengths)",
              d.api, d.block_bytes / d.elem_size, d.elem_size, d.block_bytes, d.block_bytes % 32);
    }
    check_ub_aligned(d.ub_off, d.dir == CopyDir::UbToGm ? "source UB tensor" : "destination UB tensor");
    if (d.dir == CopyDir::UbToUb) check_ub_aligned(d.ub2_off, "source UB tensor");
    if (d.dir != CopyDir::UbToUb && reinterpret_cast<uintptr_t>(d.gm) % d.elem_size != 0) {
        fault(FaultClass::Misaligned, "%s: GM address %p is not aligned to the element size %u", d.api, d.gm,
              d.elem_size);
    }
    if (d.ub_blocks_padded && (d.left_pad * d.elem_size > 32 || d.right_pad * d.elem_size > 32)) {
        fault(FaultClass::Unsupported, "%s: left/right padding of %u/%u elements exceeds 32 bytes", d.api, d.left_pad,
              d.right_pad);
    }
    const uint32_t pad_bytes = (d.left_pad + d.right_pad) * d.elem_size;
    const uint64_t ub_footprint = d.ub_blocks_padded ? round32(uint64_t(d.block_bytes) + pad_bytes) : d.block_bytes;
    const uint64_t ub_gap = d.dir == CopyDir::GmToUb ? d.dst_gap_bytes : d.src_gap_bytes;
    const uint64_t gm_gap = d.dir == CopyDir::GmToUb ? d.src_gap_bytes : d.dst_gap_bytes;
    const uint64_t ub_step = ub_footprint + ub_gap;
    const uint64_t gm_step = uint64_t(d.block_bytes) + gm_gap;
    const Access ub_access = d.dir == CopyDir::UbToGm ? Access::Read : Access::Write;
    const Access gm_access = d.dir == CopyDir::GmToUb ? Access::Read : Access::Write;
    const char* ub_name = d.dir == CopyDir::UbToGm ? "source UB tensor" : "destination UB tensor";
    const char* gm_name = d.dir == CopyDir::GmToUb ? "source GM tensor" : "destination GM tensor";

    std::vector<UbSpan> ub;
    std::vector<GmSpan> gm;
    auto add_blocks = [&](bool contiguous_ub, bool contiguous_gm) {
        const uint32_t n = d.block_count;
        if (contiguous_ub && d.dir != CopyDir::UbToUb) {
            ub.push_back({d.ub_off, ub_step * (n - 1) + ub_footprint, d.ub_buf_end, ub_access, ub_name});
        }
        if (d.dir == CopyDir::UbToUb) {  // each side with its own gap, block by block
            const uint64_t src_step = uint64_t(d.block_bytes) + d.src_gap_bytes;
            const uint64_t dst_step = uint64_t(d.block_bytes) + d.dst_gap_bytes;
            for (uint32_t i = 0; i < n; ++i) {
                ub.push_back({ub_off32(d.ub2_off + i * src_step), d.block_bytes, d.ub2_buf_end, Access::Read,
                              "source UB tensor"});
                ub.push_back({ub_off32(d.ub_off + i * dst_step), d.block_bytes, d.ub_buf_end, Access::Write,
                              "destination UB tensor"});
            }
            return;
        }
        for (uint32_t i = 0; i < n; ++i) {
            if (!contiguous_ub) {
                ub.push_back({ub_off32(d.ub_off + i * ub_step), ub_footprint, d.ub_buf_end, ub_access,
                              ub_name});
            }
            if (!contiguous_gm || i == 0) {
                const uint64_t bytes = contiguous_gm ? gm_step * (n - 1) + d.block_bytes : d.block_bytes;
                gm.push_back({static_cast<uint8_t*>(d.gm) + i * gm_step, bytes, gm_access, gm_name});
            }
        }
    };
    add_blocks(ub_gap == 0, gm_gap == 0);
    const uint64_t total = uint64_t(d.block_bytes) * d.block_count;
    pipe_op(pipe, copy_cycles(d.dir, total, d.block_count, d.gm, gm_step), ub.data(), int(ub.size()), gm.data(),
            int(gm.size()));
    add_copy_bytes(d.dir, total);
    if (d.dir != CopyDir::UbToUb && gm_data_skipped(d.gm)) return;

    uint8_t* ubp = c.ub.data();
    for (uint32_t i = 0; i < d.block_count; ++i) {
        switch (d.dir) {
            case CopyDir::GmToUb: {
                uint8_t* dst = ubp + d.ub_off + i * ub_step;
                const uint8_t* src = static_cast<const uint8_t*>(d.gm) + i * gm_step;
                const uint32_t left = d.left_pad * d.elem_size;
                std::memcpy(dst + left, src, d.block_bytes);
                if (d.is_pad) {
                    for (uint64_t off = 0; off < ub_footprint; off += d.elem_size) {
                        if (off < left || off >= left + d.block_bytes) std::memcpy(dst + off, &d.pad_bits, d.elem_size);
                    }
                }
                break;
            }
            case CopyDir::UbToGm:
                std::memcpy(static_cast<uint8_t*>(d.gm) + i * gm_step, ubp + d.ub_off + i * ub_step, d.block_bytes);
                race_write_bytes(c, static_cast<uint8_t*>(d.gm) + i * gm_step, ubp + d.ub_off + i * ub_step,
                                 d.block_bytes);
                break;
            case CopyDir::UbToUb:
                std::memmove(ubp + d.ub_off + i * (uint64_t(d.block_bytes) + d.dst_gap_bytes),
                             ubp + d.ub2_off + i * (uint64_t(d.block_bytes) + d.src_gap_bytes), d.block_bytes);
                break;
        }
    }
}

// ---- element-wise vector instructions --------------------------------------------------------------------

namespace {

// No extension op: a plain VecKind instruction.
constexpr int kNoExt = -1;

// The extension ops (ShiftLeft/ShiftRight/Axpy/CreateVecIndex) on one contiguous run of n lanes; `index0` is
// the element index of the run's first lane (CreateVecIndex).
void compute_ext(const VecDesc& d, VecExtOp op, uint8_t* dst, const uint8_t* a, uint64_t index0, size_t n) {
    const DType td = dt(d.dst.type);
    switch (op) {
        case VecExtOp::ShiftLeft:
        case VecExtOp::ShiftRight:
        case VecExtOp::ShiftRightRound:
            shift(td, dst, a, int64_t(d.scalar), op == VecExtOp::ShiftLeft, op == VecExtOp::ShiftRightRound, n);
            break;
        case VecExtOp::Axpy: axpy(td, dt(d.src0.type), dst, a, d.scalar, n); break;
        case VecExtOp::VecIndex:
            for (size_t i = 0; i < n; ++i) {
                store_element(td, dst + i * dtype_size(td), d.scalar + double(index0 + i));
            }
            break;
    }
}

void compute_run(const VecDesc& d, uint8_t* dst, const uint8_t* a, const uint8_t* b, const uint8_t* sel,
                 uint64_t sel_bit0, uint8_t* dst_bits, uint64_t dst_bit0, size_t n, int ext = kNoExt) {
    if (ext != kNoExt) {
        compute_ext(d, VecExtOp(ext), dst, a, dst_bit0, n);
        return;
    }
    const DType t = dt(d.kind == VecKind::Fill ? d.dst.type : d.src0.type);
    switch (d.kind) {
        case VecKind::Binary: binary(BinaryOp(d.op), t, dst, a, b, n); break;
        case VecKind::Unary: unary(UnaryOp(d.op), t, dst, a, n); break;
        case VecKind::Scalar: binary_scalar(ScalarOp(d.op), t, dst, a, d.scalar, n); break;
        case VecKind::Fill: fill(t, dst, d.scalar, n); break;
        case VecKind::Cast:
            if (!(soc_config.cast_modes[int(d.dst.type)][int(d.src0.type)] & (1u << d.round))) {
                fault(FaultClass::Unsupported, "Cast %s -> %s with round mode %s is not supported on %s",
                      dtype_name(t), dtype_name(dt(d.dst.type)), round_name(d.round), soc_config.name);
            }
            if (!cast(dt(d.dst.type), t, Round(d.round), dst, a, n)) {
                fault(FaultClass::Unsupported, "Cast %s -> %s with round mode %d is not implemented", dtype_name(t),
                      dtype_name(dt(d.dst.type)), int(d.round));
            }
            break;
        case VecKind::Compare:
        case VecKind::CompareScalar: {
            std::vector<uint8_t> bits((n + 7) / 8 + 1, 0);
            if (d.kind == VecKind::Compare) compare(CmpMode(d.op), t, bits.data(), a, b, n);
            else compare_scalar(CmpMode(d.op), t, bits.data(), a, d.scalar, n);
            for (size_t i = 0; i < n; ++i) set_bit(dst_bits, dst_bit0 + i, get_bit(bits.data(), i));
            break;
        }
        case VecKind::Select:
        case VecKind::SelectScalar: {
            std::vector<uint8_t> bits((n + 7) / 8 + 1, 0);
            const uint32_t lanes = 256 / uint32_t(dtype_size(t));
            for (size_t i = 0; i < n; ++i) {
                const uint64_t bit = d.op == 0 ? (sel_bit0 + i) % lanes : sel_bit0 + i;
                set_bit(bits.data(), i, get_bit(sel, bit));
            }
            select(t, dst, bits.data(), a, d.kind == VecKind::Select ? b : nullptr, d.scalar, n);
            break;
        }
    }
}

bool has_src0(VecKind k) { return k != VecKind::Fill; }
bool has_src1(VecKind k) { return k == VecKind::Binary || k == VecKind::Compare || k == VecKind::Select; }
bool bit_dst(VecKind k) { return k == VecKind::Compare || k == VecKind::CompareScalar; }
bool has_sel(VecKind k) { return k == VecKind::Select || k == VecKind::SelectScalar; }

}  // namespace

// UB bank conflicts of a vector instruction (asc-devkit bank_conflict_ub README, A2/A3): UB is 16 bank groups of
// 3 banks, 32-byte lines rotating over the groups (address bits [8:5] the group, [17:16] the bank within it).
// Each repeat reads its sources' 32-byte blocks in one beat: distinct blocks in one bank group take a beat each
// (the same block read twice is read once), and a repeat takes at least its beats (the cost table's cycles per
// repeat of `cls` hide the extra ones of an instruction slower than its reads). A repeat's block k written to a bank
// that the repeat reads for another block stalls it (block k read and written in one bank is the README's
// "hardware optimization"). Returns the cycles these add to the instruction.
namespace {
struct BankKey {
    std::array<uint64_t, 8> w;
    bool operator==(const BankKey& o) const { return w == o.w; }
};
struct BankKeyHash {
    size_t operator()(const BankKey& k) const {
        uint64_t h = 1469598103934665603ull;
        for (uint64_t v : k.w) h = (h ^ v) * 1099511628211ull;
        return size_t(h);
    }
};

double bank_conflict_cycles(const VecDesc& d, InstrClass cls, ElemType cost_type, uint32_t repeats, uint32_t lanes,
                            uint32_t es_src, uint32_t es_dst) {
    const auto& cfg = soc_config;
    if (cfg.ub_bank_groups <= 0 || repeats == 0) return 0;
    const double per_repeat = vec_cycles(cls, cost_type, 1) - vec_cycles(cls, cost_type, 0);
    // Up to 64 repeats are looked at; a longer instruction repeats their pattern. The pattern depends only on the
    // operands' offsets and strides and the instruction's shape, which a kernel's loop repeats: kept per thread.
    const uint32_t looked = std::min<uint32_t>(repeats, 64);
    auto pack = [](uint32_t a, uint32_t b) { return uint64_t(a) << 32 | b; };
    uint64_t per_bits;
    std::memcpy(&per_bits, &per_repeat, sizeof per_bits);
    const BankKey key{{pack(d.src0.off, d.src1.off), pack(d.dst.off, looked),
                       pack(d.src0.blk_stride, d.src0.rep_stride), pack(d.src1.blk_stride, d.src1.rep_stride),
                       pack(d.dst.blk_stride, d.dst.rep_stride), pack(lanes, es_src << 8 | es_dst),
                       uint64_t(d.count_form) | uint64_t(d.kind) << 8, per_bits}};
    thread_local std::unordered_map<BankKey, double, BankKeyHash> memo;
    if (auto it = memo.find(key); it != memo.end()) return it->second * double(repeats) / double(looked);
    if (memo.size() > (1u << 16)) memo.clear();
    const uint32_t line = uint32_t(cfg.ub_bank_line_bytes), groups = uint32_t(cfg.ub_bank_groups);
    const uint32_t bank_span = line * groups * uint32_t(cfg.ub_bank_rows);
    auto group = [&](uint32_t a) { return (a / line) % groups; };
    auto bank = [&](uint32_t a) { return group(a) + groups * (a / bank_span); };
    auto blocks_of = [&](uint32_t es) { return std::min<uint32_t>(8, std::max<uint32_t>(1, lanes * es / 32)); };
    // Block k of repeat r: a count-form operand is contiguous, one repeat after the other.
    auto block = [&](const VecOperand& o, uint32_t es, uint32_t r, uint32_t k) -> uint32_t {
        if (d.count_form) return o.off + (r * blocks_of(es) + k) * 32;
        return o.off + (r * o.rep_stride + k * o.blk_stride) * 32;
    };
    const bool writes = !bit_dst(d.kind);
    double extra = 0;
    for (uint32_t r = 0; r < looked; ++r) {
        std::array<uint32_t, 16> read{}, read_block{};
        int n = 0;
        auto add_read = [&](uint32_t a, uint32_t k) {
            for (int i = 0; i < n; ++i) {
                if (read[i] == a) return;
            }
            read[n] = a;
            read_block[n++] = k;
        };
        for (uint32_t k = 0; k < blocks_of(es_src); ++k) {
            if (has_src0(d.kind)) add_read(block(d.src0, es_src, r, k), k);
            if (has_src1(d.kind)) add_read(block(d.src1, es_src, r, k), k);
        }
        std::array<int, 64> load{};
        int most = 0;
        for (int i = 0; i < n; ++i) most = std::max(most, ++load[group(read[i])]);
        extra += std::max(0.0, double(most) * cfg.bank_read_conflict_cycles - per_repeat);
        bool clash = false;
        for (uint32_t k = 0; writes && k < blocks_of(es_dst) && !clash; ++k) {
            const uint32_t w = bank(block(d.dst, es_dst, r, k));
            for (int i = 0; i < n && !clash; ++i) clash = read_block[i] != k && bank(read[i]) == w;
        }
        if (clash) extra += cfg.bank_read_write_conflict_cycles;
    }
    memo.emplace(key, extra);
    return extra * double(repeats) / double(looked);
}
}  // namespace

namespace {
void vec_run(const VecDesc& d, int ext);
}  // namespace

void vec_exec(const VecDesc& d) { vec_run(d, kNoExt); }
void vec_ext_exec(const VecDesc& d, VecExtOp op) { vec_run(d, int(op)); }

namespace {
void vec_run(const VecDesc& d, int ext) {
    BlockCtx& c = ctx();
    // Select's modes 1 and 2 stage the scalar or the mask address in one 32-byte block of the reserved UB
    // (asc-devkit dav_c220 kernel_operator_vec_cmpsel_impl.h, TMP_UB_OFFSET).
    if ((d.kind == VecKind::Select && d.op != 0) || d.kind == VecKind::SelectScalar) check_reserved_scratch(d.api, 32);
    const InstrClass cls = d.cls;
    const uint32_t es_dst = esize(d.dst.type);
    const uint32_t es_src = has_src0(d.kind) ? esize(d.src0.type) : es_dst;
    const uint32_t wide = bit_dst(d.kind) ? es_src : std::max(es_dst, es_src);
    const uint32_t lanes = 256 / wide;
    const ElemType cost_type = has_src0(d.kind) ? d.src0.type : d.dst.type;

    std::vector<UbSpan> spans;
    auto add = [&](const VecOperand& o, uint64_t bytes, Access a, const char* name) {
        check_ub_aligned(o.off, name);
        spans.push_back({o.off, bytes, o.buf_end, a, name});
    };

    if (d.count_form) {
        const uint64_t n = d.count;
        if (bit_dst(d.kind) && (n * es_src) % 256 != 0) {
            warn("%s: count %llu x %u bytes is not a multiple of 256 bytes; the NPU leaves the remainder uncomputed",
                 d.api, (unsigned long long)n, es_src);
        }
        const uint64_t effective = bit_dst(d.kind) ? n * es_src / 256 * 256 / es_src : n;
        add(d.dst, bit_dst(d.kind) ? (effective + 7) / 8 : effective * es_dst, Access::Write, "dst");
        if (has_src0(d.kind)) add(d.src0, effective * es_src, Access::Read, "src0");
        if (has_src1(d.kind)) add(d.src1, effective * es_src, Access::Read, "src1");
        if (has_sel(d.kind)) add(d.sel, d.op == 0 ? lanes / 8 : (effective + 7) / 8, Access::Read, "selMask");
        if (ext == int(VecExtOp::Axpy)) add(d.dst, effective * es_dst, Access::Read, "dst");
        const uint64_t repeats = (effective * wide + 255) / 256;
        pipe_op(Pipe::V, vec_cycles(cls, cost_type, repeats) + mask_cycles() +
                             bank_conflict_cycles(d, cls, cost_type, uint32_t(std::min<uint64_t>(repeats, UINT32_MAX)),
                                                  lanes, es_src, es_dst),
                spans.data(), int(spans.size()), nullptr, 0);
        if (launch_options().timing_only) return;
        uint8_t* ub = c.ub.data();
        compute_run(d, ub + d.dst.off, ub + d.src0.off, ub + d.src1.off, ub + d.sel.off, 0, ub + d.dst.off, 0,
                    effective, ext);
        return;
    }

    const RepeatPlan plan = plan_repeats(d.mask_bits, d.mask_hi, d.mask_lo, d.use_mask_register, d.repeat, lanes);
    const uint32_t R = plan.repeats;
    add(d.dst, bit_dst(d.kind) ? (uint64_t(R) * lanes + 7) / 8 : masked_extent(d.dst, es_dst, plan, lanes),
        Access::Write, "dst");
    if (has_src0(d.kind)) add(d.src0, masked_extent(d.src0, es_src, plan, lanes), Access::Read, "src0");
    if (has_src1(d.kind)) add(d.src1, masked_extent(d.src1, es_src, plan, lanes), Access::Read, "src1");
    if (has_sel(d.kind)) add(d.sel, (uint64_t(R) * lanes + 7) / 8, Access::Read, "selMask");
    if (ext == int(VecExtOp::Axpy)) add(d.dst, masked_extent(d.dst, es_dst, plan, lanes), Access::Read, "dst");
    pipe_op(Pipe::V, vec_cycles(cls, cost_type, R) + (d.use_mask_register ? 0 : mask_cycles()) +
                         bank_conflict_cycles(d, cls, cost_type, R, lanes, es_src, es_dst),
            spans.data(), int(spans.size()), nullptr, 0);
    if (launch_options().timing_only) return;

    uint8_t* ub = c.ub.data();
    const uint32_t chunk = 32 / wide;  // lanes that stay inside one block of every operand
    for (uint32_t r = 0; r < R; ++r) {
        const Mask128 m = plan.for_repeat(r, lanes);
        for (uint32_t base = 0; base < lanes; base += chunk) {
            uint32_t i = base;
            while (i < base + chunk) {
                if (!m.test(i)) {
                    ++i;
                    continue;
                }
                uint32_t j = i;
                while (j < base + chunk && m.test(j)) ++j;
                uint8_t* dst = bit_dst(d.kind) ? nullptr : ub + lane_offset(d.dst, es_dst, r, i);
                const uint8_t* a = has_src0(d.kind) ? ub + lane_offset(d.src0, es_src, r, i) : nullptr;
                const uint8_t* b = has_src1(d.kind) ? ub + lane_offset(d.src1, es_src, r, i) : nullptr;
                compute_run(d, dst, a, b, ub + d.sel.off, uint64_t(r) * lanes + i, ub + d.dst.off,
                            uint64_t(r) * lanes + i, j - i, ext);
                i = j;
            }
        }
    }
}
}  // namespace

// ---- Cast between int4b_t and half (int4.h) -------------------------------------------------------------

namespace {
// Byte offset and nibble (0 low, 1 high) of int4b_t lane `lane` of repeat `r`: 64 lanes a 32-byte block.
uint64_t nibble_offset(const VecOperand& o, uint32_t r, uint32_t lane, uint32_t& nibble) {
    nibble = lane % 2;
    return uint64_t(o.off) + (uint64_t(r) * o.rep_stride + uint64_t(lane / 64) * o.blk_stride) * 32 + (lane % 64) / 2;
}
// Bytes from an int4b_t operand's start to the end of the last block `repeats` repeats of `lanes` lanes touch.
uint64_t int4_extent(const VecOperand& o, uint32_t repeats, uint32_t lanes) {
    if (repeats == 0 || lanes == 0) return 0;
    const uint32_t blocks = (lanes + 63) / 64;
    return (uint64_t(repeats - 1) * o.rep_stride + uint64_t(blocks - 1) * o.blk_stride) * 32 + 32;
}
// One element: half -> int4b_t rounds as the mode says (CAST_NONE as CAST_RINT) and saturates to -8..7.
uint8_t half_to_nibble(const uint8_t* h, Round mode) {
    int8_t v = 0;
    cast(DType::I8, DType::F16, mode == Round::NONE ? Round::RINT : mode, &v, h, 1);
    return uint8_t(std::clamp<int>(v, -8, 7) & 0xF);
}
void nibble_to_half(uint8_t nib, uint8_t* h) {
    const int8_t v = int8_t(nib & 0x8 ? int(nib) - 16 : int(nib));
    cast(DType::F16, DType::I8, Round::NONE, h, &v, 1);
}
}  // namespace

void cast_int4_exec(const VecDesc& d, bool to_int4) {
    BlockCtx& c = ctx();
    const VecOperand& half_op = to_int4 ? d.src0 : d.dst;
    const VecOperand& int4_op = to_int4 ? d.dst : d.src0;
    const Round mode = Round(d.round);
    // Cast.md, the A2 table: half -> int4b_t with RINT/FLOOR/CEIL/ROUND/TRUNC/NONE, int4b_t -> half with NONE.
    if (to_int4 ? mode == Round::ODD : mode != Round::NONE) {
        fault(FaultClass::Unsupported, "Cast %s with round mode %s is not supported on %s",
              to_int4 ? "half -> int4b_t" : "int4b_t -> half", round_name(d.round), soc_config.name);
    }
    constexpr uint32_t lanes = 128;  // the half side's 256 bytes
    std::vector<UbSpan> spans;
    auto add = [&](const VecOperand& o, uint64_t bytes, Access a, const char* name) {
        check_ub_aligned(o.off, name);
        spans.push_back({o.off, bytes, o.buf_end, a, name});
    };
    if (d.count_form) {
        const uint64_t n = d.count;
        if (n % 2 != 0) {
            fault(FaultClass::Unsupported, "Cast with int4b_t: count %llu is odd; Cast.md requires an even count "
                  "(two int4b_t a byte)", (unsigned long long)n);
        }
        add(d.dst, to_int4 ? n / 2 : n * 2, Access::Write, "dst");
        add(d.src0, to_int4 ? n * 2 : n / 2, Access::Read, "src0");
        pipe_op(Pipe::V, vec_cycles(d.cls, ElemType::F16, (n + lanes - 1) / lanes) + mask_cycles(), spans.data(),
                int(spans.size()), nullptr, 0);
        if (launch_options().timing_only) return;
        uint8_t* ub = c.ub.data();
        for (uint64_t i = 0; i < n; ++i) {
            uint8_t* half_p = ub + half_op.off + i * 2;
            uint8_t* byte = ub + int4_op.off + i / 2;
            if (to_int4) {
                const uint8_t nib = half_to_nibble(half_p, mode);
                *byte = uint8_t(i % 2 ? (*byte & 0x0F) | (nib << 4) : (*byte & 0xF0) | nib);
            } else {
                nibble_to_half(uint8_t(i % 2 ? *byte >> 4 : *byte & 0xF), half_p);
            }
        }
        return;
    }
    const RepeatPlan plan = plan_repeats(d.mask_bits, d.mask_hi, d.mask_lo, d.use_mask_register, d.repeat, lanes);
    const uint32_t R = plan.repeats;
    for (uint32_t r = 0; r < R; ++r) {  // Cast.md: a counter that is odd, or a bit mask splitting a byte
        const Mask128 m = plan.for_repeat(r, lanes);
        for (uint32_t i = 0; i < lanes; i += 2) {
            if (m.test(i) != m.test(i + 1)) {
                fault(FaultClass::Unsupported, "Cast with int4b_t: the mask enables lane %u but not lane %u of one "
                      "byte; Cast.md requires an even count and equal bits for lanes 2k and 2k+1", m.test(i) ? i : i + 1,
                      m.test(i) ? i + 1 : i);
            }
        }
    }
    const uint32_t reach_all = R ? mask_reach(plan.for_repeat(0, lanes), lanes) : 0;
    const uint32_t reach_last = R ? mask_reach(plan.for_repeat(R - 1, lanes), lanes) : 0;
    auto extent = [&](const VecOperand& o, bool nibbles) -> uint64_t {
        if (R == 0) return 0;
        uint64_t end = 0;
        VecOperand last = o;
        last.off = 0;
        if (nibbles) {
            if (R > 1) end = int4_extent(o, R - 1, reach_all);
            if (reach_last) end = std::max(end, uint64_t(R - 1) * o.rep_stride * 32 + int4_extent(last, 1, reach_last));
        } else {
            if (R > 1) end = repeat_extent(o, 2, R - 1, reach_all);
            if (reach_last) end = std::max(end, uint64_t(R - 1) * o.rep_stride * 32 + repeat_extent(last, 2, 1, reach_last));
        }
        return end;
    };
    add(d.dst, extent(d.dst, to_int4), Access::Write, "dst");
    add(d.src0, extent(d.src0, !to_int4), Access::Read, "src0");
    pipe_op(Pipe::V, vec_cycles(d.cls, ElemType::F16, R) + (d.use_mask_register ? 0 : mask_cycles()), spans.data(),
            int(spans.size()), nullptr, 0);
    if (launch_options().timing_only) return;
    uint8_t* ub = c.ub.data();
    for (uint32_t r = 0; r < R; ++r) {
        const Mask128 m = plan.for_repeat(r, lanes);
        for (uint32_t i = 0; i < lanes; ++i) {
            if (!m.test(i)) continue;
            uint32_t nibble = 0;
            uint8_t* byte = ub + nibble_offset(int4_op, r, i, nibble);
            uint8_t* half_p = ub + lane_offset(half_op, 2, r, i);
            if (to_int4) {
                const uint8_t nib = half_to_nibble(half_p, mode);
                *byte = uint8_t(nibble ? (*byte & 0x0F) | (nib << 4) : (*byte & 0xF0) | nib);
            } else {
                nibble_to_half(uint8_t(nibble ? *byte >> 4 : *byte & 0xF), half_p);
            }
        }
    }
}

// ---- the CmpMask register (Compare（结果存入寄存器）.md, GetCmpMask(ISASI).md, SetCmpMask(ISASI).md) -------------

namespace {
thread_local uint8_t cmp_mask_reg[16] = {};
}  // namespace

// One repeat (the page: no repeat input, 256 bytes a call); the register's 128 bits are all rewritten, lanes
// outside the mask or past the repeat's lanes as 0 (the compare example's golden: 64 float lanes, then zeros).
void cmp_mask_compare(const VecDesc& d) {
    BlockCtx& c = ctx();
    const uint32_t es = esize(d.src0.type);
    const uint32_t lanes = 256 / es;
    check_ub_aligned(d.src0.off, "src0");
    check_ub_aligned(d.src1.off, "src1");
    const RepeatPlan plan = plan_repeats(d.mask_bits, d.mask_hi, d.mask_lo, d.use_mask_register, 1, lanes);
    UbSpan spans[2] = {{d.src0.off, repeat_extent(d.src0, es, 1, lanes), d.src0.buf_end, Access::Read, "src0"},
                       {d.src1.off, repeat_extent(d.src1, es, 1, lanes), d.src1.buf_end, Access::Read, "src1"}};
    pipe_op(Pipe::V, vec_cycles(d.cls, d.src0.type, 1) + (d.use_mask_register ? 0 : mask_cycles()), spans, 2,
            nullptr, 0);
    const Mask128 m = plan.for_repeat(0, lanes);
    uint8_t* ub = c.ub.data();
    std::memset(cmp_mask_reg, 0, sizeof cmp_mask_reg);
    for (uint32_t i = 0; i < lanes && i < 128; ++i) {
        if (!m.test(i)) continue;
        uint8_t bit = 0;
        compare(CmpMode(d.op), dt(d.src0.type), &bit, ub + lane_offset(d.src0, es, 0, i),
                ub + lane_offset(d.src1, es, 0, i), 1);
        set_bit(cmp_mask_reg, i, bit & 1);
    }
}

void cmp_mask_get(const char* api, const VecOperand& dst) {
    BlockCtx& c = ctx();
    if (dst.off % 16 != 0) fault(FaultClass::Misaligned, "%s: dst at UB offset %u is not 16-byte aligned", api, dst.off);
    UbSpan span{dst.off, 16, dst.buf_end, Access::Write, "dst"};
    pipe_op(Pipe::V, vec_cycles(InstrClass::UnarySimple, ElemType::U8, 1), &span, 1, nullptr, 0);
    std::memcpy(c.ub.data() + dst.off, cmp_mask_reg, 16);
}

void cmp_mask_set(const char* api, const VecOperand& src) {
    BlockCtx& c = ctx();
    if (src.off % 16 != 0) fault(FaultClass::Misaligned, "%s: src at UB offset %u is not 16-byte aligned", api, src.off);
    UbSpan span{src.off, 16, src.buf_end, Access::Read, "src"};
    pipe_op(Pipe::V, vec_cycles(InstrClass::UnarySimple, ElemType::U8, 1), &span, 1, nullptr, 0);
    std::memcpy(cmp_mask_reg, c.ub.data() + src.off, 16);
}

// ---- reductions ------------------------------------------------------------------------------------------

namespace {

struct Reduced {
    double value;
    size_t index;
};

Reduced reduce_values(ReduceKind k, DType t, const std::vector<uint8_t>& vals, size_t n) {
    Reduced r{0, 0};
    switch (k) {
        case ReduceKind::Sum: r.value = reduce_sum(t, vals.data(), n); break;
        case ReduceKind::Max: r.value = reduce_max(t, vals.data(), n, &r.index); break;
        case ReduceKind::Min: r.value = reduce_min(t, vals.data(), n, &r.index); break;
    }
    return r;
}

// A whole-repeat sum (VCADD) has its own measured rate; max and min (VCMAX/VCMIN) share the other.
InstrClass repeat_reduce_class(ReduceKind k) {
    return k == ReduceKind::Sum ? InstrClass::ReduceSumRepeat : InstrClass::ReduceRepeat;
}

// The reduce special registers, per block thread (GetReduceRepeatSumSpr / GetReduceRepeatMaxMinSpr).
thread_local double spr_sum = 0;
thread_local double spr_maxmin = 0;
thread_local uint64_t spr_maxmin_index = 0;

void set_maxmin_spr(ReduceKind k, double value, uint64_t index) {
    if (k == ReduceKind::Sum) return;
    spr_maxmin = value;
    spr_maxmin_index = index;
}

void store_index(ElemType t, uint8_t* p, size_t index) {
    if (esize(t) == 2) {
        const uint16_t v = uint16_t(index);
        std::memcpy(p, &v, 2);
    } else {
        const uint32_t v = uint32_t(index);
        std::memcpy(p, &v, 4);
    }
}

}  // namespace

void reduce_exec(const ReduceDesc& d) {
    BlockCtx& c = ctx();
    const uint32_t es = esize(d.type);
    const uint32_t lanes = 256 / es;
    const DType t = dt(d.type);
    uint8_t* ub = c.ub.data();
    std::vector<UbSpan> spans;
    check_ub_aligned(d.src.off, "src");

    if (d.form == ReduceForm::Count) {
        const uint64_t n = d.count;
        const uint32_t outs = d.cal_index ? 2 : 1;
        spans.push_back({d.src.off, n * es, d.src.buf_end, Access::Read, "src"});
        spans.push_back({d.dst.off, outs * es, d.dst.buf_end, Access::Write, "dst"});
        const uint64_t repeats = (n + lanes - 1) / lanes;
        const InstrClass cls = repeat_reduce_class(d.kind);
        double cycles = vec_cycles(cls, d.type, repeats);
        if (repeats > 1) cycles += vec_cycles(cls, d.type, (repeats + lanes - 1) / lanes);
        pipe_op(Pipe::V, cycles + mask_cycles(), spans.data(), int(spans.size()), nullptr, 0);
        if (n == 0) return;
        std::vector<uint8_t> vals(ub + d.src.off, ub + d.src.off + n * es);
        const Reduced r = reduce_values(d.kind, t, vals, n);
        store_element(t, ub + d.dst.off, r.value);
        if (d.cal_index) store_index(d.type, ub + d.dst.off + es, r.index);
        if (d.kind == ReduceKind::Sum) spr_sum = r.value;
        set_maxmin_spr(d.kind, r.value, r.index);
        return;
    }

    const RepeatPlan plan = plan_repeats(d.mask_bits, d.mask_hi, d.mask_lo, d.use_mask_register, d.repeat, lanes);
    const uint32_t R = plan.repeats;
    VecOperand src = d.src;
    if (d.form == ReduceForm::Repeats) src.blk_stride = 1;
    spans.push_back({src.off, masked_extent(src, es, plan, lanes), src.buf_end, Access::Read, "src"});
    const bool pairs = d.order == 0 || d.order == 1;  // VALUE_INDEX / INDEX_VALUE
    uint64_t dst_bytes = es;
    if (d.form == ReduceForm::PerRepeat && R > 0) {
        const uint32_t unit = pairs && d.kind != ReduceKind::Sum ? 2 : 1;
        dst_bytes = (uint64_t(R - 1) * d.dst_rep_stride * unit + unit) * es;
    } else if (d.form == ReduceForm::PerBlock && R > 0) {
        dst_bytes = (uint64_t(R - 1) * d.dst_rep_stride * 8 + 8) * es;
    }
    spans.push_back({d.dst.off, dst_bytes, d.dst.buf_end, Access::Write, "dst"});
    const InstrClass cls = d.form == ReduceForm::PerBlock ? InstrClass::ReduceBlock : repeat_reduce_class(d.kind);
    pipe_op(Pipe::V, vec_cycles(cls, d.type, R) + mask_cycles(), spans.data(), int(spans.size()), nullptr, 0);

    std::vector<uint8_t> vals;
    std::vector<uint64_t> lane_of;  // position of each gathered value: repeat * lanes + lane
    auto gather = [&](uint32_t r, uint32_t lane_lo, uint32_t lane_hi, const Mask128& m) {
        for (uint32_t i = lane_lo; i < lane_hi; ++i) {
            if (!m.test(i)) continue;
            const uint8_t* p = ub + lane_offset(src, es, r, i);
            vals.insert(vals.end(), p, p + es);
            lane_of.push_back(uint64_t(r) * lanes + i);
        }
    };
    if (d.form == ReduceForm::Repeats) {
        for (uint32_t r = 0; r < R; ++r) gather(r, 0, lanes, plan.for_repeat(r, lanes));
        if (lane_of.empty()) return;
        const Reduced res = reduce_values(d.kind, t, vals, lane_of.size());
        store_element(t, ub + d.dst.off, res.value);
        // The index is the element's position in the repeat sequence (repeat * lanes + lane), as the
        // hardware derives it from the per-repeat inner index, not its rank among the masked-in lanes.
        if (d.cal_index) store_index(d.type, ub + d.dst.off + es, lane_of[res.index]);
        set_maxmin_spr(d.kind, res.value, lane_of[res.index]);
        return;
    }
    bool have_best = false;  // ReduceRepeat<MAX|MIN>: the extreme over all repeats, for the special register
    double best = 0;
    uint64_t best_at = 0;
    const uint32_t per_block = 32 / es;
    for (uint32_t r = 0; r < R; ++r) {
        const Mask128 m = plan.for_repeat(r, lanes);
        if (d.form == ReduceForm::PerRepeat) {
            vals.clear();
            lane_of.clear();
            gather(r, 0, lanes, m);
            if (lane_of.empty()) continue;
            const Reduced res = reduce_values(d.kind, t, vals, lane_of.size());
            const uint32_t unit = pairs && d.kind != ReduceKind::Sum ? 2 : 1;
            uint8_t* out = ub + d.dst.off + uint64_t(r) * d.dst_rep_stride * unit * es;
            const size_t lane = size_t(lane_of[res.index] - uint64_t(r) * lanes);
            if (!have_best || (d.kind == ReduceKind::Max ? res.value > best : res.value < best)) {
                have_best = true;
                best = res.value;
                best_at = lane_of[res.index];
            }
            switch (d.kind == ReduceKind::Sum ? 2 : d.order) {
                case 0: store_element(t, out, res.value), store_index(d.type, out + es, lane); break;
                case 1: store_index(d.type, out, lane), store_element(t, out + es, res.value); break;
                case 2: store_element(t, out, res.value); break;
                default: store_index(d.type, out, lane); break;
            }
            continue;
        }
        for (uint32_t b = 0; b < 8; ++b) {
            vals.clear();
            lane_of.clear();
            gather(r, b * per_block, (b + 1) * per_block, m);
            if (lane_of.empty()) continue;
            const Reduced res = reduce_values(d.kind, t, vals, lane_of.size());
            store_element(t, ub + d.dst.off + (uint64_t(r) * d.dst_rep_stride * 8 + b) * es, res.value);
        }
    }
    if (have_best) set_maxmin_spr(d.kind, best, best_at);
}

double reduce_sum_spr() { return spr_sum; }
double reduce_maxmin_spr(uint64_t* index) {
    if (index) *index = spr_maxmin_index;
    return spr_maxmin;
}

// PairReduceSum / ReducePairElem<SUM>: each pair of adjacent lanes (2k, 2k+1) of a repeat sums into element k of
// the repeat's result (half a repeat, 128 bytes; dst_rep_stride counts those). A pair with neither lane in the
// mask leaves its destination element as it was (asc-devkit ReducePairElem.md, A2/A3 and 310P); a pair with one
// lane in the mask takes that lane alone.
void pair_reduce_exec(const ReduceDesc& d) {
    BlockCtx& c = ctx();
    const uint32_t es = esize(d.type);
    const uint32_t lanes = 256 / es;
    const DType t = dt(d.type);
    check_ub_aligned(d.src.off, "src");
    check_ub_aligned(d.dst.off, "dst");
    const RepeatPlan plan = plan_repeats(d.mask_bits, d.mask_hi, d.mask_lo, d.use_mask_register, d.repeat, lanes);
    const uint32_t R = plan.repeats;
    UbSpan spans[2] = {
        {d.src.off, masked_extent(d.src, es, plan, lanes), d.src.buf_end, Access::Read, "src"},
        {d.dst.off, R ? uint64_t(R - 1) * d.dst_rep_stride * 128 + 128 : 0, d.dst.buf_end, Access::Write, "dst"},
    };
    // Cost: the theory table's ReducePairElem rate, 128 half / 64 float a cycle = 1 cycle per repeat
    // (research/ascend_hw.md §1.3): the UnarySimple class.
    pipe_op(Pipe::V, vec_cycles(InstrClass::UnarySimple, d.type, R) + (d.use_mask_register ? 0 : mask_cycles()),
            spans, 2, nullptr, 0);
    uint8_t* ub = c.ub.data();
    for (uint32_t r = 0; r < R; ++r) {
        const Mask128 m = plan.for_repeat(r, lanes);
        for (uint32_t k = 0; k < lanes / 2; ++k) {
            const bool a = m.test(2 * k), b = m.test(2 * k + 1);
            if (!a && !b) continue;
            double sum;
            if (a && b) {
                uint8_t pair[16];
                std::memcpy(pair, ub + lane_offset(d.src, es, r, 2 * k), es);
                std::memcpy(pair + es, ub + lane_offset(d.src, es, r, 2 * k + 1), es);
                sum = reduce_sum(t, pair, 2);
            } else {
                sum = load_element(t, ub + lane_offset(d.src, es, r, a ? 2 * k : 2 * k + 1));
            }
            store_element(t, ub + d.dst.off + uint64_t(r) * d.dst_rep_stride * 128 + uint64_t(k) * es, sum);
        }
    }
}

void brcb_exec(const VecOperand& dst, const VecOperand& src, uint32_t repeat) {
    BlockCtx& c = ctx();
    const uint32_t es = esize(dst.type);
    const uint32_t blk = dst.blk_stride == 0 ? 1 : dst.blk_stride;
    check_ub_aligned(dst.off, "dst");
    check_ub_aligned(src.off, "src");
    UbSpan spans[2] = {
        {src.off, uint64_t(repeat) * 8 * es, src.buf_end, Access::Read, "src"},
        {dst.off, repeat ? (uint64_t(repeat - 1) * dst.rep_stride + 7 * blk) * 32 + 32 : 0, dst.buf_end,
         Access::Write, "dst"},
    };
    pipe_op(Pipe::V, vec_cycles(InstrClass::UnarySimple, dst.type, repeat) + mask_cycles(), spans, 2, nullptr, 0);
    uint8_t* ub = c.ub.data();
    for (uint32_t r = 0; r < repeat; ++r) {
        for (uint32_t j = 0; j < 8; ++j) {
            const uint8_t* v = ub + src.off + (uint64_t(r) * 8 + j) * es;
            uint8_t* out = ub + dst.off + (uint64_t(r) * dst.rep_stride + uint64_t(j) * blk) * 32;
            for (uint32_t k = 0; k < 32; k += es) std::memmove(out + k, v, es);
        }
    }
}

}  // namespace tuner_sim
