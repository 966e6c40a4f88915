// AscendC::Std type traits (Utils-API/CPP标准库/类型特性): checked at compile time; the kernel writes 1 if built.
#include "kernel_operator.h"
using namespace AscendC;

struct Base {};
struct Derived : Base {};
using Fn = void(int);

static_assert(Std::is_void<const volatile void>::value && !Std::is_void<void*>::value && !Std::is_void<Fn>::value);
static_assert(Std::is_integral<bool>::value && Std::is_integral<const int>::value && !Std::is_integral<int&>::value);
static_assert(Std::is_floating_point<volatile float>::value && !Std::is_floating_point<float&>::value);
static_assert(Std::is_array<double[2][3]>::value && !Std::is_array<int*>::value);
static_assert(Std::is_const<const int>::value && !Std::is_const<const int*>::value);
static_assert(Std::is_pointer<int* const>::value && Std::is_reference<int&&>::value);
static_assert(Std::is_same_v<Std::add_cv_t<int>, const volatile int>);
static_assert(Std::is_same_v<Std::remove_pointer_t<int**>, int*>);
static_assert(Std::is_same_v<Std::remove_reference_t<const int&>, const int>);
static_assert(Std::is_same_v<Std::add_lvalue_reference_t<void>, void>);
static_assert(Std::is_same_v<Std::add_rvalue_reference_t<int&>, int&>);
static_assert(Std::is_same_v<Std::conditional<false, int, float>::type, float>);
static_assert(Std::is_base_of<Base, Derived>::value && Std::is_convertible<Derived*, Base*>::value);
static_assert(Std::Int<7>::value == 7 && Std::Int<7>{}() == 7);

extern "C" __global__ __aicore__ void adv_std(GM_ADDR z)
{
    GlobalTensor<int32_t> zGm;
    zGm.SetGlobalBuffer((__gm__ int32_t*)z, 8);
    zGm.SetValue(0, 1);
}
