// TPipe, TQue/TQueBind and TBuf: UB carved into buffers, and the queues whose events order the pipes.
#pragma once
#include <exception>

#include "tensor.h"

namespace tuner_sim {

constexpr int kMaxQueueSlots = 16;

TUNER_SIM_UNCHARGED constexpr int producer_pipe(AscendC::TPosition src) {
    return (src == AscendC::TPosition::VECIN || src == AscendC::TPosition::GM) ? int(Pipe::MTE2) : int(Pipe::V);
}
TUNER_SIM_UNCHARGED constexpr int consumer_pipe(AscendC::TPosition src, AscendC::TPosition dst) {
    if (src == dst) {
        return dst == AscendC::TPosition::VECOUT ? int(Pipe::MTE3) : int(Pipe::V);
    }
    return (dst == AscendC::TPosition::VECOUT || dst == AscendC::TPosition::GM) ? int(Pipe::MTE3) : int(Pipe::V);
}
const char* position_name(int position);
// A queue going out of scope while `count` of its tensors are still allocated (the first allocated at `loc`).
void tensor_leak(int position, int count, bool enqueued, Loc loc);

}  // namespace tuner_sim

namespace AscendC {

// A buffer's record in a pool (asc-devkit impl/basic_api/kernel_tensor_base.h): where it sits in UB and how long
// it is. A custom TBufPool (EXTERN_IMPL_BUFPOOL) hands these out as TBufHandle, and queues and TBufs it sets up
// take their buffers from them.
struct TBufType {
    uint32_t address = 0;
    uint32_t dataLen = 0;
    bool set = false;
};
using TBufHandle = uint8_t*;
}  // namespace AscendC

namespace tuner_sim {
// InitBufHandle: the handle's buffer at `addr`, `len` rounded up to 32 bytes, inside its pool [base, base + size).
TUNER_SIM_UNCHARGED inline void init_buf_handle(AscendC::TBufType* h, uint32_t base, uint32_t size, uint32_t addr,
                                                uint32_t len) {
    if (size == 0) {
        fault(FaultClass::QueueMisuse, "InitBufHandle: the pool was never given UB (TPipe::InitBufPool missing)");
    }
    if (len == 0) fault(FaultClass::QueueMisuse, "InitBufHandle: buffer length 0");
    const uint32_t rounded = (len + 31u) / 32u * 32u;
    if (addr % 32 != 0) {
        fault(FaultClass::Misaligned, "InitBufHandle: UB address %u is not 32-byte aligned", addr);
    }
    if (addr < base || uint64_t(addr) + rounded > uint64_t(base) + size) {
        fault(FaultClass::UbOverflow,
              "InitBufHandle: a buffer of %u bytes at UB address %u lies outside its pool [%u, %u)", rounded, addr,
              base, base + size);
    }
    h->address = addr;
    h->dataLen = rounded;
    h->set = true;
}
}  // namespace tuner_sim

namespace AscendC {

template <TPosition src, TPosition dst, int32_t depth, auto mask = 0>
class TQueBind {
public:
    TUNER_SIM_UNCHARGED __aicore__ inline TQueBind() = default;
    // A copy shares nothing with the original; only the original reports leaked tensors.
    TUNER_SIM_UNCHARGED TQueBind(const TQueBind& other) { copy_from(other); }
    TUNER_SIM_UNCHARGED TQueBind& operator=(const TQueBind& other) {
        copy_from(other);
        return *this;
    }
    // A tensor still allocated when its queue goes away is never freed: reported at its AllocTensor line.
    // Not while unwinding from a fatal fault, whose tensors are left allocated by the abort itself.
    TUNER_SIM_UNCHARGED ~TQueBind() {
        if (num_ == 0 || !leak_check_ || std::uncaught_exceptions() > 0) return;
        int leaked = 0, first = -1;
        bool enqueued = false;
        for (int k = 0; k < num_; ++k) {
            if (state_[k] == kFree) continue;
            if (first < 0) first = k;
            enqueued = enqueued || state_[k] == kEnqueued;
            ++leaked;
        }
        if (leaked) tuner_sim::tensor_leak(int(src), leaked, enqueued, alloc_loc_[first]);
    }

    template <typename T>
    TUNER_SIM_UNCHARGED __aicore__ inline LocalTensor<T> AllocTensor(tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        LocalTensor<T> t;
        AllocTensor(t, loc);
        return t;
    }
    template <typename T>
    TUNER_SIM_UNCHARGED
    __aicore__ inline void AllocTensor(LocalTensor<T>& tensor, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        tuner_sim::api_begin("TQue::AllocTensor", loc);
        require_init("AllocTensor");
        int slot = -1;
        for (int k = 0; k < num_; ++k) {
            const int cand = (next_alloc_ + k) % num_;
            if (state_[cand] == kFree) {
                slot = cand;
                break;
            }
        }
        if (slot < 0) {
            tuner_sim::fault(tuner_sim::FaultClass::QueueMisuse,
                             "AllocTensor: all %d buffers of this %s queue are in use (a FreeTensor is missing); "
                             "on the NPU this hangs",
                             num_, tuner_sim::position_name(int(src)));
        }
        next_alloc_ = (slot + 1) % num_;
        state_[slot] = kAllocated;
        alloc_loc_[slot] = loc;
        tuner_sim::live_tensor_delta(int(src), +1);
        tuner_sim::queue_slot_wait(token(slot, 1), producer);
        tensor.tuner_bind(slot_base(slot), slot_len(slot) / sizeof(T), slot_base(slot) + slot_len(slot), src);
    }
    template <typename T>
    TUNER_SIM_UNCHARGED
    __aicore__ inline void FreeTensor(LocalTensor<T>& tensor, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        tuner_sim::api_begin("TQue::FreeTensor", loc);
        const int slot = slot_of(tensor.tuner_off(), "FreeTensor");
        if (state_[slot] == kFree) {
            tuner_sim::fault(tuner_sim::FaultClass::QueueMisuse, "FreeTensor: this buffer is already free");
        }
        if (state_[slot] == kEnqueued) {
            tuner_sim::fault(tuner_sim::FaultClass::QueueMisuse,
                             "FreeTensor: the tensor is still in the queue (EnQue without DeQue)");
        }
        state_[slot] = kFree;
        tuner_sim::live_tensor_delta(int(src), -1);
        tuner_sim::queue_slot_event(token(slot, 1), consumer);
    }
    template <typename T>
    TUNER_SIM_UNCHARGED
    __aicore__ inline bool EnQue(const LocalTensor<T>& tensor, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        tuner_sim::api_begin("TQue::EnQue", loc);
        const int slot = slot_of(tensor.tuner_off(), "EnQue");
        if (state_[slot] != kAllocated && state_[slot] != kDequeued) {  // OCCUPIED or DEQUE, as asc-devkit asserts
            tuner_sim::fault(tuner_sim::FaultClass::QueueMisuse,
                             "EnQue: the tensor is %s, expected one returned by AllocTensor or DeQue",
                             state_[slot] == kFree ? "not allocated" : "already in the queue");
        }
        if (depth > 0 && count_ >= depth) {
            tuner_sim::fault(tuner_sim::FaultClass::QueueMisuse,
                             "EnQue past the queue depth: depth %d, %d tensors already queued without DeQue",
                             int(depth), count_);
        }
        state_[slot] = kEnqueued;
        fifo_[(head_ + count_) % kFifo] = uint8_t(slot);
        ++count_;
        tuner_sim::queue_slot_event(token(slot, 0), producer);
        return true;
    }
    template <typename T>
    TUNER_SIM_UNCHARGED __aicore__ inline LocalTensor<T> DeQue(tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        LocalTensor<T> t;
        DeQue(t, loc);
        return t;
    }
    template <typename T>
    TUNER_SIM_UNCHARGED
    __aicore__ inline void DeQue(LocalTensor<T>& tensor, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        tuner_sim::api_begin("TQue::DeQue", loc);
        require_init("DeQue");
        if (count_ == 0) {
            tuner_sim::fault(tuner_sim::FaultClass::QueueMisuse,
                             "DeQue on an empty %s queue (no EnQue before it); on the NPU this hangs",
                             tuner_sim::position_name(int(src)));
        }
        const int slot = fifo_[head_];
        head_ = (head_ + 1) % kFifo;
        --count_;
        state_[slot] = kDequeued;
        tuner_sim::queue_slot_wait(token(slot, 0), consumer);
        tensor.tuner_bind(slot_base(slot), slot_len(slot) / sizeof(T), slot_base(slot) + slot_len(slot), dst);
    }
    TUNER_SIM_UNCHARGED __aicore__ inline bool VacantInQue() const { return depth == 0 || count_ < depth; }
    TUNER_SIM_UNCHARGED __aicore__ inline bool HasTensorInQue() const { return count_ > 0; }
    TUNER_SIM_UNCHARGED __aicore__ inline int32_t GetTensorCountInQue() const { return count_; }
    TUNER_SIM_UNCHARGED __aicore__ inline bool HasIdleBuffer() const {
        for (int k = 0; k < num_; ++k) {
            if (state_[k] == kFree) return true;
        }
        return false;
    }
    TUNER_SIM_UNCHARGED __aicore__ inline void FreeAllEvent() {}

    // Simulator plumbing, called by TPipe::InitBuffer (and TBufPool::InitBuffer, which passes the UB offset
    // it carved, `at`).
    TUNER_SIM_UNCHARGED void tuner_init(uint8_t num, uint32_t len, int64_t at = -1) {
        if (num == 0 || num > tuner_sim::kMaxQueueSlots) {
            tuner_sim::fault(tuner_sim::FaultClass::QueueMisuse, "InitBuffer: %u buffers for one queue (1..%d)",
                             unsigned(num), tuner_sim::kMaxQueueSlots);
        }
        len_ = (len + 31u) / 32u * 32u;
        num_ = num;
        base_ = at >= 0 ? uint32_t(at) : tuner_sim::ub_alloc(uint32_t(num) * len_, "InitBuffer(queue)");
        for (auto& s : state_) s = kFree;
        head_ = count_ = 0;
        next_alloc_ = 0;
        handles_ = nullptr;
    }
    // A custom TBufPool's InitBuffer (自定义TBufPool/EXTERN_IMPL_BUFPOOL宏.md): the queue's `num` buffers are the
    // handles from `startBufhandle` on, each given its UB address by InitBufHandle.
    TUNER_SIM_UNCHARGED __aicore__ inline void InitStartBufHandle(TBufHandle startBufhandle, uint8_t num, uint32_t len) {
        if (num == 0 || num > tuner_sim::kMaxQueueSlots) {
            tuner_sim::fault(tuner_sim::FaultClass::QueueMisuse, "InitStartBufHandle: %u buffers for one queue (1..%d)",
                             unsigned(num), tuner_sim::kMaxQueueSlots);
        }
        handles_ = reinterpret_cast<TBufType*>(startBufhandle);
        num_ = num;
        len_ = (len + 31u) / 32u * 32u;
        base_ = 0;
        for (auto& st : state_) st = kFree;
        head_ = count_ = 0;
        next_alloc_ = 0;
    }
    template <typename P>
    TUNER_SIM_UNCHARGED __aicore__ inline void InitBufHandle(P* bufPool, uint32_t index, TBufHandle bufhandle,
                                                             uint32_t curPoolAddr, uint32_t len,
                                                             tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        tuner_sim::api_site("InitBufHandle", loc);
        (void)index;  // as asc-devkit: the handle passed is the one written
        tuner_sim::init_buf_handle(reinterpret_cast<TBufType*>(bufhandle), bufPool->tuner_base(),
                                   bufPool->tuner_len(), curPoolAddr, len);
    }

private:
    TUNER_SIM_UNCHARGED uint32_t slot_base(int k) const { return handles_ ? handles_[k].address : base_ + k * len_; }
    TUNER_SIM_UNCHARGED uint32_t slot_len(int k) const {
        if (!handles_) return len_;
        if (!handles_[k].set) {
            tuner_sim::fault(tuner_sim::FaultClass::QueueMisuse,
                             "buffer %d of this queue was never given an address (InitBufHandle missing for its "
                             "handle)", k);
        }
        return handles_[k].dataLen;
    }
    static constexpr int producer = tuner_sim::producer_pipe(src);
    static constexpr int consumer = tuner_sim::consumer_pipe(src, dst);
    static constexpr int kFifo = tuner_sim::kMaxQueueSlots;
    enum : uint8_t { kFree, kAllocated, kEnqueued, kDequeued };

    TUNER_SIM_UNCHARGED
    uint64_t token(int slot, int kind) const { return (reinterpret_cast<uint64_t>(this) << 6) | (slot << 1) | kind; }
    TUNER_SIM_UNCHARGED void require_init(const char* api) const {
        if (num_ == 0) {
            tuner_sim::fault(tuner_sim::FaultClass::QueueMisuse, "%s on a queue that was never given buffers "
                             "(TPipe::InitBuffer missing)", api);
        }
    }
    TUNER_SIM_UNCHARGED int slot_of(uint32_t off, const char* api) const {
        require_init(api);
        if (handles_) {
            for (int k = 0; k < num_; ++k) {
                if (handles_[k].set && handles_[k].address == off) return k;
            }
        } else if (off >= base_ && off < base_ + num_ * len_ && (off - base_) % len_ == 0) {
            return int((off - base_) / len_);
        }
        tuner_sim::fault(tuner_sim::FaultClass::QueueMisuse, "%s: the tensor does not belong to this queue", api);
    }

    uint32_t base_ = 0;
    uint32_t len_ = 0;
    TBufType* handles_ = nullptr;  // a custom pool's buffers (InitStartBufHandle), else base_ + k * len_
    uint8_t num_ = 0;
    uint8_t state_[tuner_sim::kMaxQueueSlots] = {};
    uint8_t fifo_[tuner_sim::kMaxQueueSlots] = {};
    tuner_sim::Loc alloc_loc_[tuner_sim::kMaxQueueSlots] = {};
    bool leak_check_ = true;

    TUNER_SIM_UNCHARGED void copy_from(const TQueBind& o) {
        base_ = o.base_, len_ = o.len_, num_ = o.num_, handles_ = o.handles_;
        for (int k = 0; k < tuner_sim::kMaxQueueSlots; ++k) {
            state_[k] = o.state_[k], fifo_[k] = o.fifo_[k], alloc_loc_[k] = o.alloc_loc_[k];
        }
        head_ = o.head_, count_ = o.count_, next_alloc_ = o.next_alloc_;
        leak_check_ = false;
    }
    int head_ = 0;
    int count_ = 0;
    int next_alloc_ = 0;
};

template <TPosition pos, int32_t depth, auto mask = 0>
class TQue : public TQueBind<pos, pos, depth, mask> {
public:
    TUNER_SIM_UNCHARGED
    ~TQue() {}  // declared so that it is marked: the implicit one would be inlined into the kernel and charged
};

template <TPosition pos = TPosition::LCM>
class TBuf {
public:
    TUNER_SIM_UNCHARGED __aicore__ inline TBuf() = default;
    template <typename T>
    TUNER_SIM_UNCHARGED __aicore__ inline LocalTensor<T> Get(tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        tuner_sim::api_begin("TBuf::Get", loc);
        require_init();
        LocalTensor<T> t;
        t.tuner_bind(base_, len_ / sizeof(T), base_ + len_, pos);
        return t;
    }
    template <typename T>
    TUNER_SIM_UNCHARGED
    __aicore__ inline LocalTensor<T> Get(uint32_t len, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        return GetWithOffset<T>(len, 0, loc);
    }
    template <typename T>
    TUNER_SIM_UNCHARGED
    __aicore__ inline LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset,
                                                   tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        tuner_sim::api_begin("TBuf::GetWithOffset", loc);
        require_init();
        if (uint64_t(bufOffset) + uint64_t(size) * sizeof(T) > len_) {
            tuner_sim::fault(tuner_sim::FaultClass::OutOfBounds,
                             "TBuf::Get: %u elements of %zu bytes at byte offset %u exceed the buffer's %u bytes",
                             size, sizeof(T), bufOffset, len_);
        }
        if (bufOffset % 32 != 0) {
            tuner_sim::fault(tuner_sim::FaultClass::Misaligned, "TBuf::GetWithOffset: offset %u is not 32-byte aligned",
                             bufOffset);
        }
        LocalTensor<T> t;
        t.tuner_bind(base_ + bufOffset, size, base_ + len_, pos);
        return t;
    }
    // CANN's TBuf derives from TQueBind, so kernels (asc-devkit's Sum and SoftmaxFlashV3 examples among them)
    // also take its whole buffer with AllocTensor and give it back with FreeTensor, which keeps nothing to free.
    template <typename T>
    TUNER_SIM_UNCHARGED __aicore__ inline LocalTensor<T> AllocTensor(tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        return Get<T>(loc);
    }
    template <typename T>
    TUNER_SIM_UNCHARGED __aicore__ inline void FreeTensor(LocalTensor<T>&) {}
    TUNER_SIM_UNCHARGED void tuner_init(uint32_t len, int64_t at = -1) {
        len_ = (len + 31u) / 32u * 32u;
        base_ = at >= 0 ? uint32_t(at) : tuner_sim::ub_alloc(len_, "InitBuffer(TBuf)");
    }
    // A custom TBufPool's InitBuffer: the TBuf's one buffer is the handle InitBufHandle gives its address.
    TUNER_SIM_UNCHARGED __aicore__ inline void InitStartBufHandle(TBufHandle startBufhandle, uint8_t num, uint32_t len) {
        if (num != 1) {
            tuner_sim::fault(tuner_sim::FaultClass::QueueMisuse, "TBuf::InitStartBufHandle: num is %u, a TBuf has "
                             "one buffer", unsigned(num));
        }
        handle_ = reinterpret_cast<TBufType*>(startBufhandle);
        len_ = (len + 31u) / 32u * 32u;
    }
    template <typename P>
    TUNER_SIM_UNCHARGED __aicore__ inline void InitBufHandle(P* bufPool, uint32_t index, TBufHandle bufhandle,
                                                             uint32_t curPoolAddr, uint32_t len,
                                                             tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        tuner_sim::api_site("InitBufHandle", loc);
        (void)index;
        TBufType* h = reinterpret_cast<TBufType*>(bufhandle);
        tuner_sim::init_buf_handle(h, bufPool->tuner_base(), bufPool->tuner_len(), curPoolAddr, len);
        if (h == handle_) {
            base_ = h->address;
            len_ = h->dataLen;
        }
    }

private:
    TUNER_SIM_UNCHARGED void require_init() const {
        if (len_ == 0) {
            tuner_sim::fault(tuner_sim::FaultClass::QueueMisuse,
                             "TBuf::Get on a buffer that was never initialised (TPipe::InitBuffer missing)");
        }
    }
    uint32_t base_ = 0;
    uint32_t len_ = 0;
    TBufType* handle_ = nullptr;  // a custom pool's buffer (InitStartBufHandle)
};

// A resource pool carved from the TPipe's UB (TBufPool简介.md, TBufPool构造函数.md, InitBufPool-55.md,
// InitBuffer-56.md, Reset-57.md): queues, TBufs and nested pools are given consecutive 32-byte-rounded pieces
// of it; a pool made with a `shareBuf` starts where that one does (at most its length) so two stages reuse
// the same UB. At most `bufIDSize` buffers (a queue's `num` counts each) per pool.
template <TPosition pos = TPosition::VECCALC, uint32_t bufIDSize = 4>
class TBufPool {
    static_assert(bufIDSize >= 1 && bufIDSize <= 16, "TBufPool: bufIDSize is 1..16");

public:
    TUNER_SIM_UNCHARGED __aicore__ inline TBufPool() = default;
    template <class T>
    TUNER_SIM_UNCHARGED
    __aicore__ inline bool InitBuffer(T& que, uint8_t num, uint32_t len, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        tuner_sim::api_begin("TBufPool::InitBuffer", loc);
        const uint32_t rounded = (len + 31u) / 32u * 32u;
        const int64_t at = carve(uint64_t(num) * rounded, num, "InitBuffer(queue)");
        que.tuner_init(num, len, at);
        return true;
    }
    template <TPosition bufPos>
    TUNER_SIM_UNCHARGED
    __aicore__ inline bool InitBuffer(TBuf<bufPos>& buf, uint32_t len, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        tuner_sim::api_begin("TBufPool::InitBuffer", loc);
        const int64_t at = carve((uint64_t(len) + 31u) / 32u * 32u, 1, "InitBuffer(TBuf)");
        buf.tuner_init(len, at);
        return true;
    }
    template <class T>
    TUNER_SIM_UNCHARGED
    __aicore__ inline bool InitBufPool(T& bufPool, uint32_t len, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        tuner_sim::api_begin("TBufPool::InitBufPool", loc);
        const uint32_t rounded = (len + 31u) / 32u * 32u;
        bufPool.tuner_setup(uint32_t(carve(rounded, 0, "InitBufPool")), rounded);
        return true;
    }
    template <class T, class U>
    TUNER_SIM_UNCHARGED
    __aicore__ inline bool InitBufPool(T& bufPool, uint32_t len, U& shareBuf,
                                       tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        tuner_sim::api_begin("TBufPool::InitBufPool", loc);
        require_init("InitBufPool");
        bufPool.tuner_share(shareBuf, len);
        return true;
    }
    // Ends the pool's work in flight before another pool reuses its UB: every pipe waits for it (modelled as
    // PipeBarrier<PIPE_ALL>). Its buffers stay allocated.
    TUNER_SIM_UNCHARGED __aicore__ inline void Reset(tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        tuner_sim::api_begin("TBufPool::Reset", loc);
        tuner_sim::pipe_barrier(-1);
    }

    // Simulator plumbing (TPipe::InitBufPool and the pools' own InitBufPool).
    TUNER_SIM_UNCHARGED void tuner_setup(uint32_t base, uint32_t len) {
        base_ = base;
        len_ = len;
        used_ = 0;
        bufs_ = 0;
    }
    template <class U>
    TUNER_SIM_UNCHARGED void tuner_share(const U& other, uint32_t len) {
        const uint32_t rounded = (len + 31u) / 32u * 32u;
        if (other.tuner_len() == 0) {
            tuner_sim::fault(tuner_sim::FaultClass::QueueMisuse,
                             "InitBufPool: the pool to share (shareBuf) was never initialised");
        }
        if (rounded > other.tuner_len()) {
            tuner_sim::fault(tuner_sim::FaultClass::UbOverflow,
                             "InitBufPool: %u bytes shared with a pool of %u bytes; the length must not exceed the "
                             "shared pool's", rounded, other.tuner_len());
        }
        tuner_setup(other.tuner_base(), rounded);
    }
    TUNER_SIM_UNCHARGED uint32_t tuner_base() const { return base_; }
    TUNER_SIM_UNCHARGED uint32_t tuner_len() const { return len_; }

private:
    TUNER_SIM_UNCHARGED void require_init(const char* api) const {
        if (len_ == 0) {
            tuner_sim::fault(tuner_sim::FaultClass::QueueMisuse,
                             "TBufPool::%s on a pool that was never initialised (TPipe::InitBufPool missing)", api);
        }
    }
    TUNER_SIM_UNCHARGED int64_t carve(uint64_t bytes, uint32_t buffers, const char* what) {
        require_init(what);
        if (used_ + bytes > len_) {
            tuner_sim::fault(tuner_sim::FaultClass::UbOverflow,
                             "TBufPool %s: %llu more bytes make %llu bytes in a pool of %u bytes", what,
                             (unsigned long long)bytes, (unsigned long long)(used_ + bytes), len_);
        }
        if (bufs_ + buffers > bufIDSize) {
            tuner_sim::fault(tuner_sim::FaultClass::QueueMisuse,
                             "TBufPool %s: %u more buffers make %u; the pool's bufIDSize allows %u", what, buffers,
                             bufs_ + buffers, unsigned(bufIDSize));
        }
        const uint32_t at = base_ + uint32_t(used_);
        used_ += bytes;
        bufs_ += buffers;
        return at;
    }
    uint32_t base_ = 0;
    uint32_t len_ = 0;
    uint64_t used_ = 0;
    uint32_t bufs_ = 0;
};

// The state EXTERN_IMPL_BUFPOOL gives a custom pool (asc-devkit's TBufPoolImpl): its buffer records, how many
// are handed out, and the UB range: start, the next free address (GetCurAddr), the length.
template <int bufIDSize>
struct TBufPoolImpl {
    static_assert(bufIDSize >= 1 && bufIDSize <= 16, "EXTERN_IMPL_BUFPOOL: BUFID_SIZE is 1..16");
    TBufType buf_[bufIDSize];
    uint8_t curBufSize_ = 0;
    uint32_t startAddr_ = 0;
    uint32_t maxAddr_ = 0;
    uint32_t maxLen_ = 0;
    bool isReset_ = false;

    TUNER_SIM_UNCHARGED void setup(uint32_t base, uint32_t len) {
        startAddr_ = maxAddr_ = base;
        maxLen_ = len;
        curBufSize_ = 0;
        for (auto& b : buf_) b = TBufType{};
    }
    template <class U>
    TUNER_SIM_UNCHARGED void share(const U& other, uint32_t len) {
        const uint32_t rounded = (len + 31u) / 32u * 32u;
        if (other.tuner_len() == 0) {
            tuner_sim::fault(tuner_sim::FaultClass::QueueMisuse,
                             "InitBufPool: the pool to share (shareBuf) was never initialised");
        }
        if (rounded > other.tuner_len()) {
            tuner_sim::fault(tuner_sim::FaultClass::UbOverflow,
                             "InitBufPool: %u bytes shared with a pool of %u bytes; the length must not exceed the "
                             "shared pool's", rounded, other.tuner_len());
        }
        setup(other.tuner_base(), rounded);
    }
    TUNER_SIM_UNCHARGED TBufHandle handle(uint8_t offset, tuner_sim::Loc loc) {
        tuner_sim::api_site("GetBufHandle", loc);
        if (offset >= bufIDSize) {
            tuner_sim::fault(tuner_sim::FaultClass::QueueMisuse,
                             "GetBufHandle(%u): the pool has %d buffers (EXTERN_IMPL_BUFPOOL's BUFID_SIZE)",
                             unsigned(offset), bufIDSize);
        }
        return reinterpret_cast<TBufHandle>(buf_ + offset);
    }
    // Reset (自定义TBufPool/Reset-58.md): the work on the pool's buffers ends before they are reused (the NPU
    // waits for each buffer's pending free event; modelled as PipeBarrier<PIPE_ALL>, as TBufPool::Reset), then
    // the pool is emptied: it must be given UB by InitBufPool again. Not while unwinding from a fatal fault.
    TUNER_SIM_UNCHARGED void reset(tuner_sim::Loc loc) {
        if (std::uncaught_exceptions() > 0) return;
        if (maxLen_ != 0) {
            tuner_sim::api_begin("TBufPool::Reset", loc);
            tuner_sim::pipe_barrier(-1);
        }
        curBufSize_ = 0;
        startAddr_ = maxAddr_ = maxLen_ = 0;
    }
};

// EXTERN_IMPL_BUFPOOL (自定义TBufPool/EXTERN_IMPL_BUFPOOL宏.md): inside a class, makes it a TBufPool whose
// InitBuffer the developer writes with GetBufHandle, GetCurAddr/SetCurAddr and GetCurBufSize/SetCurBufSize,
// and the queues' and TBufs' InitStartBufHandle / InitBufHandle. Only UB positions (VECIN, VECOUT, VECCALC):
// the simulator models the vector core.
#define EXTERN_IMPL_BUFPOOL(EXT_BUFPOOL, POSITION, BUFID_SIZE)                                                     \
public:                                                                                                            \
    static constexpr AscendC::TPosition poolPos = POSITION;                                                        \
    static constexpr int bufIDSize = BUFID_SIZE;                                                                   \
    static constexpr bool isTbufPool = true;                                                                       \
    static_assert(poolPos == AscendC::TPosition::VECIN || poolPos == AscendC::TPosition::VECOUT ||                 \
                      poolPos == AscendC::TPosition::VECCALC,                                                      \
                  "EXTERN_IMPL_BUFPOOL: the tuner simulator models UB pools (VECIN, VECOUT, VECCALC) only");      \
    __aicore__ inline ~EXT_BUFPOOL() { Reset(); }                                                                  \
    __aicore__ inline void Reset(tuner_sim::Loc tunerLoc = tuner_sim::Loc::here()) { tBufPoolImpl.reset(tunerLoc); } \
    __aicore__ inline void Init() { tBufPoolImpl.setup(0, 0); }                                                    \
    __aicore__ inline AscendC::TBufHandle GetBufHandle(uint8_t offset,                                             \
                                                       tuner_sim::Loc tunerLoc = tuner_sim::Loc::here()) {          \
        return tBufPoolImpl.handle(offset, tunerLoc);                                                              \
    }                                                                                                              \
    __aicore__ inline void SetCurAddr(uint32_t curAddr) { tBufPoolImpl.maxAddr_ = curAddr; }                       \
    __aicore__ inline uint32_t GetCurAddr() { return tBufPoolImpl.maxAddr_; }                                      \
    __aicore__ inline void SetCurBufSize(uint8_t curBufSize) { tBufPoolImpl.curBufSize_ = curBufSize; }            \
    __aicore__ inline uint8_t GetCurBufSize() { return tBufPoolImpl.curBufSize_; }                                 \
    void tuner_setup(uint32_t base, uint32_t len) { tBufPoolImpl.setup(base, len); }                               \
    template <class TunerU>                                                                                        \
    void tuner_share(const TunerU& other, uint32_t len) { tBufPoolImpl.share(other, len); }                        \
    uint32_t tuner_base() const { return tBufPoolImpl.startAddr_; }                                                \
    uint32_t tuner_len() const { return tBufPoolImpl.maxLen_; }                                                    \
                                                                                                                   \
protected:                                                                                                         \
    AscendC::TBufPoolImpl<BUFID_SIZE> tBufPoolImpl

class TPipe {
public:
    TUNER_SIM_UNCHARGED __aicore__ inline TPipe() {
        tuner_sim::ub_reset();
        tuner_sim::set_current_tpipe(this);
    }
    TUNER_SIM_UNCHARGED __aicore__ inline ~TPipe() {
        if (tuner_sim::current_tpipe() == this) tuner_sim::set_current_tpipe(nullptr);
    }
    TUNER_SIM_UNCHARGED __aicore__ inline void Init() {}
    template <class Q>
    TUNER_SIM_UNCHARGED
    __aicore__ inline bool InitBuffer(Q& que, uint8_t num, uint32_t len, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        tuner_sim::api_begin("TPipe::InitBuffer", loc);
        que.tuner_init(num, len);
        return true;
    }
    template <TPosition pos>
    TUNER_SIM_UNCHARGED
    __aicore__ inline bool InitBuffer(TBuf<pos>& buf, uint32_t len, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        tuner_sim::api_begin("TPipe::InitBuffer", loc);
        buf.tuner_init(len);
        return true;
    }
    // A TBufPool carved from UB (TPipe/InitBufPool.md); with `shareBuf`, it reuses that pool's start and length.
    template <class T>
    TUNER_SIM_UNCHARGED
    __aicore__ inline bool InitBufPool(T& bufPool, uint32_t len, tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        tuner_sim::api_begin("TPipe::InitBufPool", loc);
        const uint32_t rounded = (len + 31u) / 32u * 32u;
        bufPool.tuner_setup(tuner_sim::ub_alloc(rounded, "InitBufPool"), rounded);
        return true;
    }
    template <class T, class U>
    TUNER_SIM_UNCHARGED
    __aicore__ inline bool InitBufPool(T& bufPool, uint32_t len, U& shareBuf,
                                       tuner_sim::Loc loc = tuner_sim::Loc::here()) {
        tuner_sim::api_begin("TPipe::InitBufPool", loc);
        bufPool.tuner_share(shareBuf, len);
        return true;
    }
    template <HardEvent evt>
    TUNER_SIM_UNCHARGED __aicore__ inline TEventID FetchEventID() {
        return FetchEventID(evt);
    }
    TUNER_SIM_UNCHARGED __aicore__ inline TEventID FetchEventID(HardEvent evt) {
        const uint32_t used = allocated_[int(evt)];
        for (int id = 0; id < tuner_sim::event_ids(); ++id) {
            if (!(used & (1u << id))) return TEventID(id);
        }
        tuner_sim::fault(tuner_sim::FaultClass::QueueMisuse, "FetchEventID: every event id of this HardEvent is "
                         "allocated");
    }
    template <HardEvent evt>
    TUNER_SIM_UNCHARGED __aicore__ inline TEventID AllocEventID() {
        const TEventID id = FetchEventID(evt);
        allocated_[int(evt)] |= 1u << id;
        return id;
    }
    template <HardEvent evt>
    TUNER_SIM_UNCHARGED __aicore__ inline void ReleaseEventID(TEventID id) {
        allocated_[int(evt)] &= ~(1u << id);
    }
    TUNER_SIM_UNCHARGED __aicore__ inline void Reset() { tuner_sim::ub_reset(); }
    TUNER_SIM_UNCHARGED __aicore__ inline void Destroy() {}

private:
    uint32_t allocated_[int(HardEvent::MAX)] = {};
};

TUNER_SIM_UNCHARGED __aicore__ inline TPipe* GetTPipePtr() { return static_cast<TPipe*>(tuner_sim::current_tpipe()); }

}  // namespace AscendC

// CANN declares GetTPipePtr at global scope as well (asc-devkit examples call it unqualified).
using AscendC::GetTPipePtr;
