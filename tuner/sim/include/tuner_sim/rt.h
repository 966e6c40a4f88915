// The runtime interface the Ascend C headers call into. Everything heavy (element loops, checks, the pipe
// model, the report) lives in the precompiled runtime library; the headers only translate API calls into
// these functions, so a kernel compiles in a fraction of a second.
#pragma once
#include <cstddef>
#include <cstdint>

#include "uncharged.h"

namespace tuner_sim {

// Where an API call was made; filled at the call site by default arguments.
struct Loc {
    const char* file;
    int line;
    TUNER_SIM_UNCHARGED
    static Loc here(const char* file = __builtin_FILE(), int line = __builtin_LINE()) { return {file, line}; }
};

enum class Pipe : uint8_t { S = 0, V = 1, MTE2 = 2, MTE3 = 3 };
constexpr int kPipes = 4;

enum class FaultClass : uint8_t {
    UbOverflow, Misaligned, OutOfBounds, QueueMisuse, SyncHazard, GmRace, Deadlock, Timeout, Unsupported, Crash
};

// Element type ids shared with numerics.h (same order as tuner_sim::DType there).
enum class ElemType : uint8_t { U8, I8, U16, I16, F16, BF16, U32, I32, F32, U64, I64, F64 };

// Instruction classes of the vector cost table (tuner/data/costs/vector_costs.csv).
// In the order of tuner/sim/codegen.py's INSTR_CLASSES. ReduceSumRepeat: a whole-repeat sum (VCADD), faster
// than the max/min reduce (ReduceRepeat) in fp32. UB bank conflicts are costed apart, from the operands' addresses.
enum class InstrClass : uint8_t {
    UnarySimple, Binary, ExpLnSqrt, Div, ReduceRepeat, ReduceBlock, CopyUb, ReduceSumRepeat, Count
};

// ---- per-block state -------------------------------------------------------------------------------
uint8_t* ub_base();
int64_t block_idx();
int64_t block_num();
int64_t max_live_tensors();
int64_t event_ids();
void* current_tpipe();
void set_current_tpipe(void* pipe);

// Starts an API call: sets the call site used by every fault and charges the scalar issue cost.
void api_begin(const char* api, Loc loc);
// Starts GetValue / SetValue: sets the call site only. Each is one scalar load or store, charged by
// scalar_access / gm_scalar_access as the same access made through a pointer is.
void api_site(const char* api, Loc loc);

// Fatal faults end the block (they throw); the others are recorded and the kernel goes on.
[[noreturn]] void fault(FaultClass cls, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void fault_soft(FaultClass cls, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void warn(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// ---- UB allocation (TPipe) -------------------------------------------------------------------------
// Carves `bytes` (already rounded) from this block's UB; faults ub-overflow when it does not fit.
uint32_t ub_alloc(uint32_t bytes, const char* what);
// An API that writes `bytes` of scratch at the UB Ascend C reserves for it (soc_config.ub_scratch_offset: Select
// modes 1 and 2 on A2): a ub-overflow fault when the TPipe's buffers reach that far.
void check_reserved_scratch(const char* api, uint32_t bytes);
void ub_reset();

// ---- checked memory accesses -----------------------------------------------------------------------
enum class Access : uint8_t { Read, Write };
struct UbSpan {
    uint32_t off;      // byte offset in UB
    uint64_t bytes;    // extent touched (64-bit: a count or repeat extent past 4 GiB must not wrap into UB)
    uint32_t buf_end;  // end of the buffer the tensor was carved from (bounds)
    Access access;
    const char* operand;
};
struct GmSpan {
    const void* addr;
    uint64_t bytes;
    Access access;
    const char* operand;
};
// One instruction on a pipe: bounds and alignment are checked, sync hazards against earlier accesses by
// other pipes are looked for, the accesses are recorded, and the pipe's timeline advances by `cycles`.
void pipe_op(Pipe pipe, double cycles, const UbSpan* ub, int n_ub, const GmSpan* gm, int n_gm);
// GlobalTensor::SetL2CacheHint: copies of these GM bytes bypass L2 (`bypass`) or may hit it (bytes 0: to the
// end of the GM buffer).
void l2_hint(const void* addr, uint64_t bytes, bool bypass);
void check_ub_aligned(uint32_t off, const char* operand);

// ---- costs ------------------------------------------------------------------------------------------
double vec_cycles(InstrClass cls, ElemType t, uint64_t repeats);
enum class CopyDir : uint8_t { GmToUb, UbToGm, UbToUb };
double copy_cycles(CopyDir dir, uint64_t bytes, uint64_t bursts, const void* gm_addr, uint64_t gm_step);
double mask_cycles();

// ---- synchronisation --------------------------------------------------------------------------------
void set_flag(int src, int dst, int event_id, const char* name);
void wait_flag(int src, int dst, int event_id, const char* name);
void pipe_barrier(int pipe);  // pipe id: 0..3 as Pipe, or -1 for PIPE_ALL
void scalar_access(uint32_t ub_off, uint32_t bytes, Access access);  // GetValue/SetValue on UB
// GetValue/SetValue on GM, through the scalar data cache; `charged` false: ordering and checks only (the
// software SyncAll's workspace reads, costed by sync_all_us).
void gm_scalar_access(const void* addr, uint64_t bytes, Access access, bool charged = true);
// After GetValue has read GM: a read of a flag another block polled for acquires what that block released.
void gm_scalar_read_done();
void sync_all();
// Queue events: producer pipe -> consumer pipe through a buffer slot.
void queue_slot_event(uint64_t token, int from_pipe);
void queue_slot_wait(uint64_t token, int to_pipe);
void live_tensor_delta(int position, int delta);

// ---- vector mask state (SetVectorMask / SetMaskCount / SetMaskNorm) ---------------------------------
struct MaskState {
    bool counter;
    uint64_t hi, lo;
};
MaskState& mask_state();

// ---- GM ---------------------------------------------------------------------------------------------
void* gm_alloc(uint64_t bytes, const char* name);
void gm_free(void* p);
// A GM buffer whose bytes nobody gives or reads back (a --timing-only run's inputs given by shape and its
// outputs): copies to and from it move no data; the pages it never touches cost no memory.
void gm_mark_without_data(void* p);
// Whether the byte at `p` lies in such a buffer and the run is --timing-only.
bool gm_data_skipped(const void* p);

}  // namespace tuner_sim

namespace tuner_sim {

// ---- data movement (DataCopy / DataCopyPad), resolved to one descriptor -----------------------------
struct CopyDesc {
    const char* api;
    CopyDir dir;
    uint32_t ub_off, ub_buf_end;    // UB side (destination of GmToUb/UbToUb, source of UbToGm)
    uint32_t ub2_off, ub2_buf_end;  // UB source of UbToUb
    void* gm;                       // GM side
    uint32_t elem_size;
    uint32_t block_count;
    uint32_t block_bytes;
    uint64_t src_gap_bytes, dst_gap_bytes;  // end-to-start gaps, already in bytes
    bool require_32b_blocks;                // DataCopy: every block must be a multiple of 32 bytes
    bool ub_blocks_padded;                  // DataCopyPad: each UB block starts on a 32-byte boundary
    uint32_t left_pad, right_pad;           // elements (GmToUb DataCopyPad)
    bool is_pad;
    uint64_t pad_bits;                      // padding value, raw bits of one element
};
void data_copy(const CopyDesc& d);

// ---- vector instructions, resolved to one descriptor ------------------------------------------------
enum class VecKind : uint8_t { Binary, Unary, Scalar, Fill, Cast, Compare, CompareScalar, Select, SelectScalar };
struct VecOperand {
    uint32_t off, buf_end;
    uint32_t blk_stride, rep_stride;  // 32-byte blocks (repeat form only)
    ElemType type;
};
struct VecDesc {
    const char* api;
    VecKind kind;
    uint8_t op;          // BinaryOp / UnaryOp / ScalarOp / CmpMode / SELMODE of numerics.h
    InstrClass cls;
    VecOperand dst, src0, src1;
    VecOperand sel;      // Select: the bit-mask tensor
    bool count_form;     // first `count` elements, contiguous
    uint64_t count;
    bool mask_bits;      // repeat form: true = bit mask (mask_hi, mask_lo); false = first mask_lo lanes
    uint64_t mask_hi, mask_lo;
    bool use_mask_register;  // isSetMask == false: take the mask set by SetVectorMask / SetMaskCount
    uint32_t repeat;
    double scalar;
    uint8_t round;
};
void vec_exec(const VecDesc& d);

enum class ReduceKind : uint8_t { Sum, Max, Min };
enum class ReduceForm : uint8_t { Count, Repeats, PerRepeat, PerBlock };
struct ReduceDesc {
    const char* api;
    ReduceKind kind;
    ReduceForm form;
    ElemType type;
    VecOperand dst, src, tmp;
    bool has_tmp;
    uint64_t count;      // Count form
    bool mask_bits;
    uint64_t mask_hi, mask_lo;
    bool use_mask_register;   // isSetMask == false: take the mask set by SetVectorMask / SetMaskCount
    uint32_t repeat;
    uint32_t dst_rep_stride;  // PerRepeat: elements (units of the ordering); PerBlock: units of 8 elements
    bool cal_index;
    uint8_t order;            // AscendC::ReduceOrder
};
void reduce_exec(const ReduceDesc& d);

void brcb_exec(const VecOperand& dst, const VecOperand& src, uint32_t repeat);

}  // namespace tuner_sim

namespace tuner_sim {

// ---- the SoC model, emitted per SoC from tuner/data by the build (one generated translation unit) ----
constexpr int kElemTypes = 12;
struct CopyCurve {
    const double* points;  // (bytes, GB/s) pairs, sorted by bytes
    int n;
};
struct SocConfig {
    const char* name;
    const char* family;
    const char* model_version;
    int vector_cores;
    double clock_mhz;
    double system_counter_mhz;  // GetSystemCycle's ticks per µs
    uint32_t ub_usable_bytes;    // what TPipe may allocate
    uint32_t ub_scratch_offset;  // where the APIs using Ascend C's reserved UB (Select modes 1/2, ...) write
    uint32_t ub_stack_end;       // where PopStackBuffer's space (the advanced APIs' own temporary UB) ends
    uint32_t ub_physical_bytes;
    int max_live_tensors;
    int event_ids;
    double gm_bandwidth_gbps;
    uint64_t l2_bytes;
    double l2_bandwidth_gbps;
    bool low_confidence;
    const char* low_confidence_fields;
    CopyCurve gm_to_ub, ub_to_gm, ub_to_ub;
    double cycles_per_repeat[int(InstrClass::Count)][kElemTypes];
    double issue_cycles[int(InstrClass::Count)][kElemTypes];
    double head_us_base, head_us_per_block;
    double scalar_cycles_per_api_call, mask_setup_cycles, get_value_cycles, set_value_cycles;
    double flag_cycles, barrier_cycles, sync_all_us, gm_align_512_factor, l2_hit_speedup;
    double dma_issue_cycles;  // the least a GM copy holds its queue (runtime.cpp copy_cycles)
    double dma_port_gbps;     // what one core's GM copies move together (timing.cpp); 0: no limit
    double gm_misalign_span_bytes;  // how much of a burst off 512-byte alignment is slowed
    double gm_same_address_cycles;  // a copy's wait for each other copy in flight on its 512-byte regions
    double gm_bypass_align_512_factor;  // gm_align_512_factor for a read that bypasses L2
    // UB banks (ops.cpp bank_conflict_cycles): lines of ub_bank_line_bytes rotate over ub_bank_groups groups, each
    // bank ub_bank_rows lines deep; ub_bank_groups 0: conflicts not modelled.
    double ub_bank_line_bytes, ub_bank_groups, ub_bank_rows, bank_read_conflict_cycles, bank_read_write_conflict_cycles;
    double vector_startup_cycles;  // every vector instruction, on top of its class's issue and repeats
    // The kernel's own scalar code (runtime.cpp, "kernel scalar code"): per basic block executed, and per GM
    // access through the scalar data cache (a hit, and a line brought in from GM); its UB accesses cost
    // get_value_cycles / set_value_cycles.
    double scalar_block_cycles, dcache_hit_cycles, dcache_miss_cycles;
    double dcache_bytes, dcache_line_bytes, dcache_ways;
    uint8_t cast_modes[kElemTypes][kElemTypes];  // [dst][src]: bit m set = RoundMode m allowed
};
extern const SocConfig soc_config;

// ---- launching ----------------------------------------------------------------------------------------
struct LaunchOptions {
    bool auto_sync = true;
    const char* report_path = nullptr;
    const char* trace_path = nullptr;
    double timeout_s = 60.0;
    bool l2_warm = false;  // GM data already in L2 when it fits (--l2 warm); otherwise cold in HBM
    // --timing-only: the checks and the model run as always, but element-wise arithmetic is skipped and buffers
    // marked without data move none; the time equals the full run's where control flow does not depend on data.
    bool timing_only = false;
};
LaunchOptions& launch_options();
// Runs `body` once per block (block_dim blocks, waves of at most the SoC's vector cores) and checks the
// whole launch; returns the number of faults.
using KernelBody = void (*)(void* closure);
int run_kernel(const char* kernel, KernelBody body, void* closure, int64_t block_dim);

}  // namespace tuner_sim

// ---- data rearrangement (issue 16) ----
// The Gather family, GatherMask, Transpose, Sort32/MrgSort and Interleave (runtime/rearrange.cpp), and the
// extra element-wise and reduce instructions that reuse the vector repeat machinery (runtime/ops.cpp).
namespace tuner_sim {

// Element-wise instructions outside VecKind, run through vec_exec's mask/repeat/stride resolution: the
// descriptor's kind gives the operand shape (Scalar: dst, src0, scalar; Fill: dst only).
enum class VecExtOp : uint8_t { ShiftLeft, ShiftRight, ShiftRightRound, Axpy, VecIndex };
void vec_ext_exec(const VecDesc& d, VecExtOp op);
// PairReduceSum / ReducePairElem<SUM>: lanes (2k, 2k+1) of each repeat summed into element k of the repeat's
// 128-byte destination slot (dst_rep_stride in units of 128 bytes).
void pair_reduce_exec(const ReduceDesc& d);
// The reduce special registers (GetReduceRepeatSumSpr / GetReduceRepeatMaxMinSpr): what the block's last
// ReduceSum count form, or ReduceRepeat<MAX|MIN> / ReduceMax / ReduceMin, left there.
double reduce_sum_spr();
double reduce_maxmin_spr(uint64_t* index);

// Gather (elements by byte offset; count or mask/repeat form) and Gatherb (32-byte blocks by byte offset).
struct GatherDesc {
    const char* api;
    ElemType type;
    VecOperand dst, src, offset;
    uint32_t base_addr;   // Gather: bytes added to every offset
    bool by_block;        // Gatherb
    bool count_form;
    uint64_t count;
    bool mask_bits;
    uint64_t mask_hi, mask_lo;
    uint32_t repeat;
    uint32_t dst_blk_stride, dst_rep_stride;  // 32-byte blocks
};
void gather_exec(const GatherDesc& d);

// GatherMask: the elements whose pattern bit is set, packed into dst; returns how many were kept.
struct GatherMaskDesc {
    const char* api;
    ElemType type;
    VecOperand dst, src0, pattern;
    uint8_t builtin;           // 1..7: a built-in pattern; 0: the `pattern` tensor
    bool counter;              // reduceMode true: `mask` elements per repeat
    uint32_t mask;
    uint32_t repeat;
    uint32_t src0_blk_stride, src0_rep_stride, src1_rep_stride;  // 32-byte blocks
};
uint64_t gather_mask_exec(const GatherMaskDesc& d);

enum class TransposeKind : uint8_t { B16, Nchw2Nhwc, Nhwc2Nchw };
struct TransposeDesc {
    const char* api;
    TransposeKind kind;
    ElemType type;
    VecOperand dst, src, tmp;
    bool has_tmp;
    uint32_t tmp_bytes;  // the tensor's size in bytes (LocalTensor::GetSize)
    uint16_t n, c, h, w;
};
void transpose_exec(const TransposeDesc& d);

// Sort32: 32 (score, index) pairs per repeat, sorted by score, descending, into 8-byte entries.
void sort32_exec(const char* api, ElemType t, const VecOperand& dst, const VecOperand& score, const VecOperand& index,
                 uint32_t repeat);
struct MrgSortDesc {
    const char* api;
    ElemType type;
    VecOperand dst;
    VecOperand src[4];
    uint16_t lengths[4];  // entries per queue
    bool exhausted_suspension;
    uint16_t valid_bits;
    uint32_t repeat;
    uint32_t entry_bytes;  // 0: MrgSort's 8-byte (score, index) entries; MrgSort4: a region proposal (8 elements)
    uint32_t score_off;    // byte offset of the score in an entry
};
void mrg_sort_exec(const MrgSortDesc& d);
void mrg_sort_result(uint16_t counts[4]);  // GetMrgSortResult: entries taken from each queue by the last MrgSort
// Region proposals (310P AI Core): 8 elements each, [x1, y1, x2, y2, score, label, reserved, reserved].
// ProposalConcat writes src[i] into element `mode` of proposal i, ProposalExtract the reverse (16 a repeat);
// RpSort16 sorts each repeat's 16 proposals by score, descending.
enum class ProposalOp : uint8_t { Concat, Extract, Sort16 };
void proposal_exec(const char* api, ProposalOp op, ElemType t, const VecOperand& dst, const VecOperand& src,
                   uint32_t repeat, int32_t mode);

// Interleave (dst0||dst1 = src0[0], src1[0], src0[1], ...) and DeInterleave (dst0 = even, dst1 = odd elements of
// src0||src1, or of src0 alone when src1 is absent).
void interleave_exec(const char* api, bool de, ElemType t, const VecOperand& dst0, const VecOperand& dst1,
                     const VecOperand& src0, const VecOperand* src1, uint64_t count);

// TransDataTo5HD, 2-byte elements: each repeat transposes the 16 x 16 matrix whose row i is the 32-byte block at
// src_off[i] into the blocks at dst_off[j] (dst block j, element i = src block i, element j). Offsets in bytes;
// each block's bounds are its *_end.
void trans_5hd_exec(const char* api, ElemType t, const uint32_t dst_off[16], const uint32_t dst_end[16],
                    const uint32_t src_off[16], const uint32_t src_end[16], uint32_t repeat, uint32_t dst_rep_stride,
                    uint32_t src_rep_stride);

// The 128-bit CmpMask register: Compare's register form (one repeat, no destination tensor; d.kind Compare)
// writes it, GetCmpMask copies it to UB (16 bytes), SetCmpMask loads it from UB (16 bytes).
void cmp_mask_compare(const VecDesc& d);
void cmp_mask_get(const char* api, const VecOperand& dst);
void cmp_mask_set(const char* api, const VecOperand& src);

}  // namespace tuner_sim

// ---- memory, sync, atomics (issue 16) ----
namespace tuner_sim {

// A static-Tensor tile (LocalTensor(pos, addr, tileSize), LocalMemAllocator::Alloc) at UB byte `addr`: faults
// misaligned when addr is not 32-byte aligned, ub-overflow when it ends past `limit` (GetUBSizeInBytes()).
void ub_static_tensor(uint32_t addr, uint64_t bytes, uint32_t limit, const char* what);
// InitSocState: mask in normal mode and all ones, DMA atomics off.
void init_soc_state();
// What a DataCopy UB->GM does at GM (SetAtomicAdd / SetAtomicMax / SetAtomicMin / DisableDmaAtomic).
enum class AtomicOp : uint8_t { None = 0, Add, Max, Min };
void set_atomic(uint8_t op, ElemType type);
void set_atomic_type(ElemType type);
// DataCopy / DataCopyPad UB->GM: atomic under SetAtomic*, a plain data_copy otherwise.
void gm_store(const CopyDesc& d);
// ReadGmByPassDCache / WriteGmByPassDCache.
void gm_bypass_access(const void* addr, uint64_t bytes, Access access);
void data_sync_barrier();
// Faults out-of-bounds unless [addr, addr + bytes) lies in one GM buffer (a sync workspace).
void gm_check_range(const void* addr, uint64_t bytes, const char* what);
// Cross-core flags: the waits block until the sets they need have happened (a wait that can never be met is a
// deadlock fault), follow them in the timing model, and order GM accesses between the blocks.
void cross_core_set_flag(int mode, int pipe, int flag_id);
void cross_core_wait_flag(int mode, int flag_id);
void ib_set(const void* gm, int64_t block_idx, int event_id);
void ib_wait(const void* gm, int64_t block_idx, int event_id);
void notify_next_block(const void* gm);
void wait_pre_block(const void* gm);
void group_arrive(const void* gm, uint32_t arrive_size, uint32_t wait_size, uint32_t index);
void group_wait(const void* gm, uint32_t arrive_size, uint32_t wait_size, uint32_t index);
void sync_some(const void* gm, int64_t used_cores);
// SetPadValue: the value DataCopyPad (GM->UB, isPad false) fills its padding with; false until one is set.
void set_pad_value(uint64_t bits);
bool pad_value(uint64_t* bits);

}  // namespace tuner_sim
