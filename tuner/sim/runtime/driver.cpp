// `main` of a program built by `tuner simulate`: reads the argument manifest written by the Python side,
// places GM buffers, launches the registered kernel entry and writes outputs and the report. Every file it
// is given is a path or "fd:N", a descriptor the caller opened (a sandboxed run may open nothing).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "../include/tuner_sim/entry.h"
#include "state.h"

namespace tuner_sim {

namespace {
struct Entry {
    const char* name = nullptr;
    int nparams = 0;
    const ParamInfo* params = nullptr;
    EntryThunk thunk = nullptr;
};
Entry g_entry;

const char* kind_name(ParamKind k) {
    switch (k) {
        case ParamKind::Pointer: return "pointer";
        case ParamKind::Integral: return "integral";
        case ParamKind::Floating: return "floating";
        default: return "record";
    }
}

[[noreturn]] void usage(const std::string& msg) {
    fprintf(stderr, "error: %s\n", msg.c_str());
    std::exit(2);
}

struct Arg {
    std::string kind, path, name;
    uint64_t bytes = 0;
    std::vector<uint8_t> value;
    void* gm = nullptr;
};
}  // namespace

int register_entry(const char* name, int nparams, const ParamInfo* params, EntryThunk thunk) {
    g_entry = {name, nparams, params, thunk};
    return 0;
}

}  // namespace tuner_sim

int main(int argc, char** argv) {
    using namespace tuner_sim;
    std::string manifest;
    int64_t block_dim = 1;
    auto& opt = launch_options();
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> const char* {
            if (i + 1 >= argc) usage(a + " needs a value");
            return argv[++i];
        };
        if (a == "--describe") {
            printf("{\"kernel\": \"%s\", \"params\": [", g_entry.name ? g_entry.name : "");
            for (int p = 0; p < g_entry.nparams; ++p) {
                printf("%s{\"kind\": \"%s\", \"size\": %zu}", p ? ", " : "", kind_name(g_entry.params[p].kind),
                       g_entry.params[p].size);
            }
            printf("]}\n");
            return 0;
        } else if (a == "--manifest") {
            manifest = next();
        } else if (a == "--block-dim") {
            block_dim = std::atoll(next());
        } else if (a == "--report") {
            opt.report_path = next();
        } else if (a == "--trace") {
            opt.trace_path = next();
        } else if (a == "--timeout") {
            opt.timeout_s = std::atof(next());
        } else if (a == "--timing-only") {
            opt.timing_only = true;
        } else if (a == "--no-auto-sync") {
            opt.auto_sync = false;
        } else if (a == "--l2") {
            const std::string mode = next();
            if (mode != "warm" && mode != "cold") usage("--l2 takes warm or cold, not " + mode);
            opt.l2_warm = mode == "warm";
        } else {
            usage("unknown option " + a);
        }
    }
    if (!g_entry.thunk) usage("no kernel entry was registered");
    std::vector<Arg> args;
    FILE* mfile = manifest.empty() ? nullptr : open_input(manifest.c_str());
    if (!mfile) usage("cannot read the argument manifest " + manifest);
    std::string text;
    char chunk[4096];
    for (size_t n; (n = fread(chunk, 1, sizeof chunk, mfile)) > 0;) text.append(chunk, n);
    fclose(mfile);
    std::istringstream mf(text);
    for (std::string line; std::getline(mf, line);) {
        if (line.empty()) continue;
        std::istringstream ls(line);
        Arg arg;
        ls >> arg.kind;
        if (arg.kind == "value") {
            std::string hex;
            ls >> hex;
            for (size_t k = 0; k + 1 < hex.size(); k += 2) arg.value.push_back(uint8_t(std::stoul(hex.substr(k, 2), nullptr, 16)));
        } else if (arg.kind == "out") {
            ls >> arg.path >> arg.bytes >> arg.name;
        } else if (arg.kind == "shape") {  // an input known by its size alone (--timing-only)
            ls >> arg.bytes >> arg.name;
            if (!opt.timing_only) usage("GM buffer " + arg.name + " is given by its shape alone: that needs --timing-only");
        } else {
            ls >> arg.path >> arg.name;
        }
        args.push_back(std::move(arg));
    }
    if (int(args.size()) != g_entry.nparams) {
        usage("the kernel takes " + std::to_string(g_entry.nparams) + " parameters, the manifest gives " +
              std::to_string(args.size()));
    }
    std::vector<void*> slots(args.size());
    std::vector<void*> pointers(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
        Arg& arg = args[i];
        if (arg.kind == "value") {
            arg.value.resize(std::max<size_t>(arg.value.size(), g_entry.params[i].size), 0);
            slots[i] = arg.value.data();
            continue;
        }
        FILE* in = nullptr;
        if (arg.kind == "in" || arg.kind == "bytes") {
            in = open_input(arg.path.c_str());
            if (!in) usage("cannot read " + arg.path);
            fseek(in, 0, SEEK_END);
            arg.bytes = uint64_t(ftell(in));
            fseek(in, 0, SEEK_SET);
        }
        arg.gm = gm_alloc(arg.bytes, arg.name.c_str());
        if (arg.kind == "shape" || (arg.kind == "out" && opt.timing_only)) gm_mark_without_data(arg.gm);
        if (in) {
            const size_t got = fread(arg.gm, 1, arg.bytes, in);
            fclose(in);
            if (got != arg.bytes) usage("short read from " + arg.path);
        }
        pointers[i] = arg.gm;
        slots[i] = &pointers[i];
    }
    struct Closure {
        EntryThunk thunk;
        void** slots;
    } closure{g_entry.thunk, slots.data()};
    const int faults = run_kernel(
        g_entry.name, [](void* c) { static_cast<Closure*>(c)->thunk(static_cast<Closure*>(c)->slots); }, &closure,
        block_dim);
    for (const Arg& arg : args) {
        if (arg.kind != "out" || opt.timing_only) continue;
        FILE* f = open_output(arg.path.c_str());
        if (!f) usage("cannot write " + arg.path);
        fwrite(arg.gm, 1, arg.bytes, f);
        fclose(f);
    }
    return faults ? 1 : 0;
}
