// AscendC::Std's type traits (asc-devkit docs/zh/api/Utils-API/CPP标准库/类型特性/<name>.md): compile-time
// type queries and transforms with the C++ standard library's meaning, so the host compiler's own serve.
// Each documented trait with its _v / _t helper, and Std::Int (integral_constant.md).
#pragma once
#include <cstddef>
#include <type_traits>

namespace AscendC {
namespace Std {
using std::add_const;
using std::add_const_t;
using std::add_cv;
using std::add_cv_t;
using std::add_lvalue_reference;
using std::add_lvalue_reference_t;
using std::add_pointer;
using std::add_pointer_t;
using std::add_rvalue_reference;
using std::add_rvalue_reference_t;
using std::add_volatile;
using std::add_volatile_t;
using std::conditional;
using std::conditional_t;
using std::enable_if;
using std::enable_if_t;
using std::integral_constant;
using std::is_array;
using std::is_array_v;
using std::is_base_of;
using std::is_base_of_v;
using std::is_const;
using std::is_const_v;
using std::is_convertible;
using std::is_convertible_v;
using std::is_floating_point;
using std::is_floating_point_v;
using std::is_integral;
using std::is_integral_v;
using std::is_pointer;
using std::is_pointer_v;
using std::is_reference;
using std::is_reference_v;
using std::is_same;
using std::is_same_v;
using std::is_void;
using std::is_void_v;
using std::remove_const;
using std::remove_const_t;
using std::remove_cv;
using std::remove_cv_t;
using std::remove_pointer;
using std::remove_pointer_t;
using std::remove_reference;
using std::remove_reference_t;
using std::remove_volatile;
using std::remove_volatile_t;
using std::false_type;
using std::true_type;
template <size_t v>
using Int = integral_constant<size_t, v>;
}  // namespace Std
}  // namespace AscendC
