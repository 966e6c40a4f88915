// Registers one kernel entry of a source compiled by `tuner simulate`: its parameter kinds and sizes,
// and a thunk that calls it with arguments read from files by the driver.
#pragma once
#include <cstddef>
#include <type_traits>
#include <utility>

#include "uncharged.h"


namespace tuner_sim {

enum class ParamKind : int { Pointer = 0, Integral = 1, Floating = 2, Record = 3 };
struct ParamInfo {
    ParamKind kind;
    std::size_t size;
};
using EntryThunk = void (*)(void** args);
int register_entry(const char* name, int nparams, const ParamInfo* params, EntryThunk thunk);

template <class A>
TUNER_SIM_UNCHARGED constexpr ParamInfo param_info() {
    using D = std::decay_t<A>;
    if constexpr (std::is_pointer_v<D>) return {ParamKind::Pointer, sizeof(D)};
    else if constexpr (std::is_integral_v<D> || std::is_enum_v<D>) return {ParamKind::Integral, sizeof(D)};
    else if constexpr (std::is_floating_point_v<D>) return {ParamKind::Floating, sizeof(D)};
    else return {ParamKind::Record, sizeof(D)};
}

template <auto Fn, class... A, std::size_t... I>
TUNER_SIM_UNCHARGED void call_with(void** args, std::index_sequence<I...>) {
    Fn(*static_cast<std::decay_t<A>*>(args[I])...);
}

// A named function, not a lambda (whose conversion to a function pointer goes through a thunk the compiler
// makes, which would be charged as the kernel's code).
template <auto Fn, class... A>
TUNER_SIM_UNCHARGED void entry_thunk(void** args) {
    call_with<Fn, A...>(args, std::index_sequence_for<A...>{});
}

template <auto Fn, class... A>
TUNER_SIM_UNCHARGED int register_fn(const char* name, void (*)(A...)) {
    static const ParamInfo infos[sizeof...(A) + 1] = {param_info<A>()..., {ParamKind::Record, 0}};
    return register_entry(name, int(sizeof...(A)), infos, &entry_thunk<Fn, A...>);
}

}  // namespace tuner_sim

// Variadic: a kernel template's arguments hold commas (`TUNER_SIM_ENTRY(add<512, 128>)`).
#define TUNER_SIM_ENTRY(...) \
    static const int tuner_sim_entry_registered = tuner_sim::register_fn<&__VA_ARGS__>(#__VA_ARGS__, &__VA_ARGS__);
