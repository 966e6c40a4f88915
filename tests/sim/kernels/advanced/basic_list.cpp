// ListTensorDesc / TensorDesc (基础API/辅助数据结构/ListTensorDesc.md) driver: the kernel lays out a list of its
// two inputs in the `desc` workspace as CANN does (pointer offset; per tensor dim | index << 32 and the shape, or
// with DIM 0 one 0xffffffff word and the count in the first word; the data pointers), decodes it, adds the two
// tensors it finds into z and writes what it read to meta (tests/sim/test_basic_extras.py). BAD_INDEX asks for
// a tensor past the list.
#include "kernel_operator.h"
#include "kernel_operator_list_tensor_intf.h"
using namespace AscendC;

#ifndef DIM
#define DIM 2
#endif
#ifndef BAD_INDEX
#define BAD_INDEX 0
#endif

extern "C" __global__ __aicore__ void basic_list(GM_ADDR x, GM_ADDR y, GM_ADDR desc, GM_ADDR z, GM_ADDR meta,
                                                 uint32_t rows, uint32_t cols)
{
    __gm__ uint64_t* d = (__gm__ uint64_t*)desc;
    __gm__ int64_t* m = (__gm__ int64_t*)meta;
    const uint64_t ptrs[2] = {(uint64_t)x, (uint64_t)y};
    if (DIM == 0) {
        d[0] = 24;
        d[1] = uint64_t(2) << 32;
        d[2] = 0xffffffffu;
        d[3] = ptrs[0];
        d[4] = ptrs[1];
    } else {
        d[0] = (1 + (1 + DIM) * 2) * sizeof(uint64_t);
        for (uint64_t k = 0; k < 2; ++k) {
            d[1 + k * (1 + DIM)] = DIM | (k << 32);
            d[2 + k * (1 + DIM)] = rows;
            d[3 + k * (1 + DIM)] = cols;
            d[1 + 2 * (1 + DIM) + k] = ptrs[k];
        }
    }
    ListTensorDesc list((__gm__ void*)desc);
    const uint32_t n = rows * cols;
    GlobalTensor<float> xGm, yGm, zGm;
    m[0] = list.GetSize();
#if DIM == 0
    xGm.SetGlobalBuffer(list.GetDataPtr<float>(0), n);
    yGm.SetGlobalBuffer(list.GetDataPtr<float>(BAD_INDEX ? 2 : 1), n);
#else
    uint64_t shape[DIM];
    TensorDesc<float> td;
    td.SetShapeAddr(shape);
    list.GetDesc(td, 0);
    xGm = td.GetDataObj();
    list.GetDesc(td, BAD_INDEX ? 2 : 1);
    yGm = td.GetDataObj();
    m[1] = td.GetDim();
    m[2] = td.GetIndex();
    m[3] = td.GetShape(0);
    m[4] = td.GetShape(1);
    m[5] = yGm.GetSize();
    m[6] = td.GetDataPtr() == (__gm__ float*)y;
#endif
    zGm.SetGlobalBuffer((__gm__ float*)z, n);
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, b;
    pipe.InitBuffer(a, n * sizeof(float));
    pipe.InitBuffer(b, n * sizeof(float));
    LocalTensor<float> al = a.Get<float>(), bl = b.Get<float>();
    DataCopy(al, xGm, n);
    DataCopy(bl, yGm, n);
    SetFlag<HardEvent::MTE2_V>(0);
    WaitFlag<HardEvent::MTE2_V>(0);
    Add(al, al, bl, int32_t(n));
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    DataCopy(zGm, al, n);
}
