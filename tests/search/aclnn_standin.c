/* A stand-in for CANN's libnnopbase.so and an installed operator's libcust_opapi.so, with their signatures
 * (aclCreateTensor, aclDestroyTensor, aclnn<Op>GetWorkspaceSize, aclnn<Op>), for testing tuner.search.aclnn's
 * marshalling on CPU: its SoftmaxCustom computes a row softmax (float32 or float16) from the descriptors it was handed,
 * so wrong dims, strides, offsets, dtypes or addresses give wrong numbers. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int64_t dims[8], strides[8], storage[8];
    uint64_t ndims, nstorage;
    int dtype, format;
    int64_t offset;
    void* data;
} aclTensor;

typedef struct {
    const aclTensor *x, *y;
} aclOpExecutor;

int live_tensors = 0;
uint64_t last_workspace_size = 0;
void* last_stream = 0;

aclTensor* aclCreateTensor(const int64_t* dims, uint64_t ndims, int dtype, const int64_t* strides, int64_t offset,
                           int format, const int64_t* storage, uint64_t nstorage, void* data) {
    if (ndims > 8 || nstorage > 8) return 0;
    aclTensor* t = calloc(1, sizeof(aclTensor));
    memcpy(t->dims, dims, ndims * sizeof(int64_t));
    memcpy(t->strides, strides, ndims * sizeof(int64_t));
    memcpy(t->storage, storage, nstorage * sizeof(int64_t));
    t->ndims = ndims, t->nstorage = nstorage, t->dtype = dtype, t->format = format, t->offset = offset;
    t->data = data;
    ++live_tensors;
    return t;
}

int aclDestroyTensor(const aclTensor* t) {
    free((void*)t);
    --live_tensors;
    return 0;
}

int aclnnSoftmaxCustomGetWorkspaceSize(const aclTensor* x, const aclTensor* y, uint64_t* size,
                                       aclOpExecutor** executor) {
    if (x->dtype > 1 || y->dtype != x->dtype || x->ndims != 2 || x->format != 2) return 161001;
    static aclOpExecutor e;
    e.x = x, e.y = y;
    *executor = &e;
    *size = 4096;
    return 0;
}

static float load(const aclTensor* t, int64_t r, int64_t c, int half) {
    const int64_t at = t->offset + r * t->strides[0] + c * t->strides[1];
    return half ? (float)((const _Float16*)t->data)[at] : ((const float*)t->data)[at];
}

int aclnnSoftmaxCustom(void* workspace, uint64_t size, aclOpExecutor* e, void* stream) {
    if (!workspace || size != 4096) return 561103;
    last_workspace_size = size, last_stream = stream;
    const aclTensor *x = e->x, *y = e->y;
    const int half = x->dtype == 1;
    for (int64_t r = 0; r < x->dims[0]; ++r) {
        float top = -INFINITY, sum = 0;
        for (int64_t c = 0; c < x->dims[1]; ++c) top = fmaxf(top, load(x, r, c, half));
        for (int64_t c = 0; c < x->dims[1]; ++c) sum += expf(load(x, r, c, half) - top);
        for (int64_t c = 0; c < x->dims[1]; ++c) {
            const float v = expf(load(x, r, c, half) - top) / sum;
            const int64_t at = y->offset + r * y->strides[0] + c * y->strides[1];
            if (half) ((_Float16*)y->data)[at] = (_Float16)v;
            else ((float*)y->data)[at] = v;
        }
    }
    return 0;
}
