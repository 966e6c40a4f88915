// tuner simulator: the driver of a CANN project's host side (tuner/sim/project.py generates a file that includes
// this one and links it with op_host/*.cpp). It registers the op, builds the contexts from the inputs' shapes and
// dtypes (the OpDef's dtype table decides the outputs' dtypes and the kernel's DTYPE_* macros), runs InferShape
// and the tiling function as the framework would, and prints one JSON object after a marker line.
//
//   host [--op NAME] [--soc-res LABEL.KEY=VALUE]... [--core-num N] [--capacity BYTES] [--soc-config NAME]
//        [--input NAME=DT_X:D0,D1,...]... [--value NAME=HEX]... [--attr NAME=VALUE]...
#pragma once
#define TUNER_SIM_PROJECT_DRIVER 1  // its tiling_save_failed reports a project fault
#include "cann_host.h"

#include <exception>

namespace tuner_sim {
namespace cann {
inline std::vector<std::string>& errors() {
    static std::vector<std::string> list;
    return list;
}
inline std::vector<std::string>& warnings() {
    static std::vector<std::string> list;
    return list;
}
// One line per overflowing tiling: a SetDataSize after a SaveToBuffer that did not fit says nothing new.
inline bool overflow_reported() {
    for (const std::string& e : errors())
        if (e.rfind("the tiling data (", 0) == 0) return true;
    return false;
}

void tiling_save_failed(const char* cls, size_t size, size_t capacity) {
    if (overflow_reported()) return;
    errors().push_back(std::string("the tiling data (") + cls + ", " + std::to_string(size) +
                       " bytes) is bigger than the tiling buffer (GetRawTilingData()->GetCapacity() = " +
                       std::to_string(capacity) + " bytes): SaveToBuffer wrote nothing");
}

inline std::string json_str(const std::string& s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += char(c);
        } else if (c < 0x20 || c >= 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof(buf), "\\u%04x", c);
            out += buf;
        } else {
            out += char(c);
        }
    }
    return out + "\"";
}

inline const std::map<std::string, ge::DataType>& dtype_names() {
    static const std::map<std::string, ge::DataType> names = {
        {"DT_FLOAT", ge::DT_FLOAT}, {"DT_FLOAT16", ge::DT_FLOAT16}, {"DT_BF16", ge::DT_BF16},
        {"DT_INT8", ge::DT_INT8}, {"DT_UINT8", ge::DT_UINT8}, {"DT_INT16", ge::DT_INT16},
        {"DT_UINT16", ge::DT_UINT16}, {"DT_INT32", ge::DT_INT32}, {"DT_UINT32", ge::DT_UINT32},
        {"DT_INT64", ge::DT_INT64}, {"DT_UINT64", ge::DT_UINT64}, {"DT_DOUBLE", ge::DT_DOUBLE},
        {"DT_BOOL", ge::DT_BOOL}, {"DT_COMPLEX64", ge::DT_COMPLEX64}};
    return names;
}

inline std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> parts;
    std::string cur;
    std::istringstream in(s);
    while (std::getline(in, cur, sep)) parts.push_back(cur);
    if (!s.empty() && s.back() == sep) parts.push_back("");
    return parts;
}

inline std::string trim(const std::string& s) {
    size_t a = s.find_first_not_of(" \t[](){}");
    size_t b = s.find_last_not_of(" \t[](){}");
    return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

inline bool parse_attr(const std::string& text, gert::TunerAttrValue& v, std::string& why) {
    using K = gert::TunerAttrValue;
    std::string t = trim(text);
    char* end = nullptr;
    switch (v.kind) {
        case K::Int:
            v.i = std::strtoll(t.c_str(), &end, 0);
            if (t.empty() || *end) why = "an integer";
            return why.empty();
        case K::Float:
            v.f = std::strtof(t.c_str(), &end);
            if (t.empty() || *end) why = "a number";
            return why.empty();
        case K::Bool:
            if (t == "true" || t == "True" || t == "1") v.b = true;
            else if (t == "false" || t == "False" || t == "0") v.b = false;
            else why = "true or false";
            return why.empty();
        case K::Str: v.s = text; return true;
        case K::ListInt: case K::ListFloat: case K::ListBool: {
            std::vector<int64_t> li;
            std::vector<float> lf;
            std::vector<bool> lb;
            for (const std::string& raw : split(t, ',')) {
                std::string p = trim(raw);
                if (p.empty()) continue;
                if (v.kind == K::ListInt) {
                    li.push_back(std::strtoll(p.c_str(), &end, 0));
                    if (*end) why = "a comma-separated list of integers";
                } else if (v.kind == K::ListFloat) {
                    lf.push_back(std::strtof(p.c_str(), &end));
                    if (*end) why = "a comma-separated list of numbers";
                } else {
                    lb.push_back(p == "true" || p == "True" || p == "1");
                }
            }
            v.li = gert::TypedContinuousVector<int64_t>(li);
            v.lf = gert::TypedContinuousVector<float>(lf);
            v.lb = gert::TypedContinuousVector<bool>(lb);
            return why.empty();
        }
        case K::ListListInt: {
            v.lli.v_.clear();
            for (const std::string& row : split(t, ';')) {
                std::vector<int64_t> r;
                for (const std::string& p : split(trim(row), ','))
                    if (!trim(p).empty()) r.push_back(std::strtoll(trim(p).c_str(), nullptr, 0));
                v.lli.v_.emplace_back(r);
            }
            return true;
        }
    }
    return false;
}

inline const char* attr_kind_name(gert::TunerAttrValue::Kind k) {
    static const char* const names[] = {"int", "float", "bool", "str", "list_int", "list_float", "list_bool",
                                        "list_list_int"};
    return names[int(k)];
}

inline std::string attr_json(const gert::TunerAttrValue& v) {
    using K = gert::TunerAttrValue;
    std::ostringstream o;
    o.precision(9);
    switch (v.kind) {
        case K::Int: o << v.i; break;
        case K::Float:
            if (std::isfinite(v.f)) o << v.f;
            else o << "null";
            break;
        case K::Bool: o << (v.b ? "true" : "false"); break;
        case K::Str: o << json_str(v.s); break;
        case K::ListInt:
            o << "[";
            for (size_t i = 0; i < v.li.GetSize(); ++i) o << (i ? "," : "") << v.li.GetData()[i];
            o << "]";
            break;
        case K::ListFloat:
            o << "[";
            for (size_t i = 0; i < v.lf.GetSize(); ++i) o << (i ? "," : "") << v.lf.GetData()[i];
            o << "]";
            break;
        case K::ListBool:
            o << "[";
            for (size_t i = 0; i < v.lb.GetSize(); ++i) o << (i ? "," : "") << (v.lb.GetData()[i] ? "true" : "false");
            o << "]";
            break;
        case K::ListListInt:
            o << "[";
            for (size_t i = 0; i < v.lli.v_.size(); ++i) {
                o << (i ? "," : "") << "[";
                for (size_t j = 0; j < v.lli.v_[i].GetSize(); ++j) o << (j ? "," : "") << v.lli.v_[i].GetData()[j];
                o << "]";
            }
            o << "]";
            break;
    }
    return o.str();
}

inline std::string shape_json(const gert::Shape& s) {
    std::string out = "[";
    for (size_t i = 0; i < s.GetDimNum(); ++i) out += (i ? "," : "") + std::to_string(s.GetDim(i));
    return out + "]";
}

inline std::string param_type_name(ops::Option o) {
    return o == ops::OPTIONAL ? "optional" : o == ops::DYNAMIC ? "dynamic" : "required";
}

inline std::string params_json(const std::vector<ops::OpParamDef>& params) {
    std::string out = "[";
    for (size_t i = 0; i < params.size(); ++i) {
        const ops::OpParamDef& p = params[i];
        out += std::string(i ? "," : "") + "{\"name\":" + json_str(p.name_) + ",\"param_type\":" +
               json_str(param_type_name(p.param_type_)) + ",\"dtypes\":[";
        for (size_t j = 0; j < p.dtypes_.size(); ++j)
            out += std::string(j ? "," : "") + json_str(ge::tuner_data_type_name(p.dtypes_[j]));
        out += "],\"dtype_list\":" + std::string(p.dtype_list_ ? "true" : "false") +
               ",\"value_depend\":" + (p.value_depend_ != ops::IGNORE ? "true" : "false") +
               ",\"follow\":" + json_str(p.follow_) + "}";
    }
    return out + "]";
}

inline std::string tiling_json() {
    std::string out = "{\"classes\":[";
    bool first = true;
    for (const auto& [name, c] : tiling_classes()) {
        out += std::string(first ? "" : ",") + "{\"name\":" + json_str(name) + ",\"size\":" + std::to_string(c.size) +
               ",\"fields\":[";
        first = false;
        for (size_t i = 0; i < c.fields.size(); ++i) {
            const TilingField& f = c.fields[i];
            out += std::string(i ? "," : "") + "{\"name\":" + json_str(f.name) + ",\"type\":" + json_str(f.type) +
                   ",\"arr\":" + std::to_string(f.arr_size) + ",\"struct\":" + (f.is_struct ? "true" : "false") +
                   "}";
        }
        out += "]}";
    }
    out += "],\"bindings\":{";
    first = true;
    for (const auto& [op, cls] : tiling_bindings()) {
        out += std::string(first ? "" : ",") + json_str(op) + ":" + json_str(cls);
        first = false;
    }
    return out + "}}";
}

inline std::string strings_json(const std::vector<std::string>& list) {
    std::string out = "[";
    for (size_t i = 0; i < list.size(); ++i) out += (i ? "," : "") + json_str(list[i]);
    return out + "]";
}

struct HexError {};
inline std::string from_hex(const std::string& hex) {
    std::string out;
    for (size_t i = 0; i + 1 < hex.size(); i += 2) out += char(std::stoi(hex.substr(i, 2), nullptr, 16));
    return out;
}

inline std::string to_hex(const uint8_t* p, size_t n) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (size_t i = 0; i < n; ++i) {
        out += digits[p[i] >> 4];
        out += digits[p[i] & 15];
    }
    return out;
}

inline fe::PlatFormInfos& platform() {
    static fe::PlatFormInfos p;
    return p;
}

inline const char* marker() { return "@@TUNER_SIM_HOST_RESULT@@"; }

[[noreturn]] inline void finish(const std::string& body) {
    std::fflush(stdout);
    std::cout.flush();
    std::string out = std::string("\n") + marker() + "\n{" + body + ",\"errors\":" + strings_json(errors()) +
                      ",\"warnings\":" + strings_json(warnings()) + ",\"tiling\":" + tiling_json() + "}\n";
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
    std::_Exit(0);
}

[[noreturn]] inline void fail(const std::string& stage, const std::string& why) {
    errors().push_back(why);
    finish("\"status\":" + json_str(stage));
}

inline std::string ops_json() {
    std::string out = "[";
    bool first = true;
    for (const auto& [name, make] : ops::tuner_op_defs()) {
        std::unique_ptr<ops::OpDef> def = make(name.c_str());
        out += std::string(first ? "" : ",") + "{\"name\":" + json_str(name) + ",\"inputs\":" +
               params_json(def->inputs_) + ",\"outputs\":" + params_json(def->outputs_) + ",\"attrs\":[";
        first = false;
        for (size_t i = 0; i < def->attrs_.size(); ++i) {
            const ops::OpAttrDef& a = def->attrs_[i];
            out += std::string(i ? "," : "") + "{\"name\":" + json_str(a.name_) + ",\"type\":" +
                   json_str(attr_kind_name(a.value_.kind)) + ",\"required\":" + (a.required_ ? "true" : "false") +
                   ",\"default\":" + (a.has_default_ ? attr_json(a.value_) : "null") + "}";
        }
        out += "],\"socs\":[";
        for (size_t i = 0; i < def->aicore_.configs_.size(); ++i)
            out += std::string(i ? "," : "") + json_str(def->aicore_.configs_[i].first);
        out += "]}";
    }
    return out + "]";
}

// Run one op: what the framework does between the inputs' arrival and the kernel's launch.
inline int host_main(int argc, char** argv) {
    std::string op_name;
    std::string soc_config;
    size_t capacity = 64 * 1024;
    std::vector<std::pair<std::string, std::string>> given_inputs;
    std::map<std::string, std::string> given_values;
    std::vector<std::pair<std::string, std::string>> given_attrs;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string flag = argv[i];
        std::string val = argv[i + 1];
        size_t eq = val.find('=');
        if (flag == "--op") op_name = val;
        else if (flag == "--soc-config") soc_config = val;
        else if (flag == "--capacity") capacity = std::strtoull(val.c_str(), nullptr, 10);
        else if (flag == "--core-num") platform().SetCoreNum(uint32_t(std::strtoul(val.c_str(), nullptr, 10)));
        else if (flag == "--soc-res" && eq != std::string::npos) {
            std::string lk = val.substr(0, eq);
            size_t dot = lk.find('.');
            platform().SetPlatformRes(lk.substr(0, dot), lk.substr(dot + 1), val.substr(eq + 1));
        } else if (flag == "--input" && eq != std::string::npos) given_inputs.emplace_back(val.substr(0, eq), val.substr(eq + 1));
        else if (flag == "--value" && eq != std::string::npos) given_values[val.substr(0, eq)] = val.substr(eq + 1);
        else if (flag == "--attr" && eq != std::string::npos) given_attrs.emplace_back(val.substr(0, eq), val.substr(eq + 1));
    }
    std::string ops_desc = ops_json();
    auto& defs = ops::tuner_op_defs();
    if (defs.empty()) fail("no-op", "op_host registers no operator (no OP_ADD(...) of an OpDef class)");
    if (op_name.empty()) {
        if (defs.size() > 1) {
            std::string names;
            for (const auto& [n, _] : defs) names += (names.empty() ? "" : ", ") + n;
            fail("no-op", "op_host registers several operators (" + names + "): name one");
        }
        op_name = defs.begin()->first;
    }
    if (!defs.count(op_name)) fail("no-op", "op_host registers no operator named " + op_name);
    std::unique_ptr<ops::OpDef> def = defs[op_name](op_name.c_str());
    std::string head = "\"op\":" + json_str(op_name) + ",\"ops\":" + ops_desc;

    // The SoC's own configuration (AddConfig(soc, config)) may redefine the params' dtypes and formats.
    const ops::OpAICoreConfig* cfg = nullptr;
    bool soc_listed = def->aicore_.configs_.empty();
    auto lower = [](std::string t) {
        for (char& c : t) c = char(std::tolower(static_cast<unsigned char>(c)));
        return t;
    };
    for (const auto& [soc, c] : def->aicore_.configs_) {
        if (lower(soc) == lower(soc_config)) {
            soc_listed = true;
            if (!c.inputs_.empty() || !c.outputs_.empty()) cfg = &c;
        }
    }
    if (!soc_listed)
        warnings().push_back("the OpDef has no AICore().AddConfig(\"" + soc_config +
                             "\"): CANN would not build this op for the chosen SoC");
    auto param_of = [&](const ops::OpParamDef& p, bool input) -> const ops::OpParamDef& {
        if (cfg == nullptr) return p;
        for (const ops::OpParamDef& q : input ? cfg->inputs_ : cfg->outputs_)
            if (q.name_ == p.name_ && !q.dtypes_.empty()) return q;
        return p;
    };

    gert::TunerOpRun run;
    run.node_name = op_name;
    run.node_type = op_name;
    run.platform = &platform();
    std::set<std::string> used;
    std::vector<ge::DataType> in_dtype_ir(def->inputs_.size(), ge::DT_UNDEFINED);
    std::vector<int> in_ir_of_instance;
    for (size_t ir = 0; ir < def->inputs_.size(); ++ir) {
        const ops::OpParamDef& p = def->inputs_[ir];
        auto it = std::find_if(given_inputs.begin(), given_inputs.end(), [&](auto& g) { return g.first == p.name_; });
        if (p.param_type_ == ops::DYNAMIC)
            fail("unsupported", "input '" + p.name_ + "' is DYNAMIC (a tensor list): not supported by the tuner "
                                "simulator");
        if (it == given_inputs.end()) {
            if (p.param_type_ == ops::REQUIRED) fail("usage", "missing required input '" + p.name_ + "'");
            run.input_instance.push_back(-1);
            continue;
        }
        used.insert(p.name_);
        size_t colon = it->second.find(':');
        std::string dt = it->second.substr(0, colon);
        if (!dtype_names().count(dt)) fail("usage", "input '" + p.name_ + "': unknown dtype " + dt);
        gert::StorageShape shape;
        if (colon != std::string::npos)
            for (const std::string& d : split(it->second.substr(colon + 1), ','))
                if (!d.empty()) {
                    shape.MutableOriginShape().AppendDim(std::strtoll(d.c_str(), nullptr, 10));
                    shape.MutableStorageShape().AppendDim(std::strtoll(d.c_str(), nullptr, 10));
                }
        run.input_instance.push_back(int(run.in_shapes.size()));
        in_ir_of_instance.push_back(int(ir));
        in_dtype_ir[ir] = dtype_names().at(dt);
        run.in_shapes.push_back(shape);
        gert::CompileTimeTensorDesc desc;
        desc.SetDataType(dtype_names().at(dt));
        run.in_descs.push_back(desc);
        gert::Tensor t;
        t.GetShape() = shape;
        t.SetDataType(dtype_names().at(dt));
        // Only a ValueDepend input reaches the tiling function with its values, as in CANN.
        if (given_values.count(p.name_) &&
            (p.value_depend_ != ops::IGNORE || param_of(p, true).value_depend_ != ops::IGNORE))
            t.tuner_set_data(from_hex(given_values[p.name_]));
        run.in_tensors.push_back(t);
    }
    for (const auto& g : given_inputs)
        if (!used.count(g.first)) fail("usage", "the op has no input named '" + g.first + "'");

    // The dtype combination: the column of the OpDef's DataType lists that every given input matches.
    size_t columns = 0;
    for (const auto& p : def->inputs_) if (!param_of(p, true).dtype_list_) columns = std::max(columns, param_of(p, true).dtypes_.size());
    for (const auto& p : def->outputs_) if (!param_of(p, false).dtype_list_) columns = std::max(columns, param_of(p, false).dtypes_.size());
    long column = -1;
    for (size_t j = 0; j < columns && column < 0; ++j) {
        bool ok = true;
        for (size_t ir = 0; ir < def->inputs_.size() && ok; ++ir) {
            const ops::OpParamDef& p = param_of(def->inputs_[ir], true);
            if (in_dtype_ir[ir] == ge::DT_UNDEFINED || p.dtypes_.empty()) continue;
            if (p.dtype_list_) ok = std::count(p.dtypes_.begin(), p.dtypes_.end(), in_dtype_ir[ir]) > 0;
            else ok = j < p.dtypes_.size() && p.dtypes_[j] == in_dtype_ir[ir];
        }
        if (ok) column = long(j);
    }
    if (columns > 0 && column < 0) {
        std::string given;
        for (size_t ir = 0; ir < def->inputs_.size(); ++ir)
            if (in_dtype_ir[ir] != ge::DT_UNDEFINED)
                given += (given.empty() ? "" : ", ") + def->inputs_[ir].name_ + " " + ge::tuner_data_type_name(in_dtype_ir[ir]);
        std::string table;
        for (size_t j = 0; j < columns; ++j) {
            std::string combo;
            for (size_t ir = 0; ir < def->inputs_.size(); ++ir) {
                const ops::OpParamDef& p = param_of(def->inputs_[ir], true);
                if (!p.dtype_list_ && j < p.dtypes_.size()) combo += std::string(combo.empty() ? "" : " ") + ge::tuner_data_type_name(p.dtypes_[j]);
            }
            table += (table.empty() ? "" : "; ") + combo;
        }
        fail("dtype", "the inputs' dtypes (" + given + ") match no column of the OpDef's DataType lists (" + table + ")");
    }
    std::string in_json = "[";
    for (size_t ir = 0; ir < def->inputs_.size(); ++ir) {
        const ops::OpParamDef& p = param_of(def->inputs_[ir], true);
        int k = run.input_instance[ir];
        ge::Format f = column >= 0 && size_t(column) < p.formats_.size() ? p.formats_[size_t(column)] : ge::FORMAT_ND;
        if (k >= 0) {
            run.in_descs[size_t(k)].SetStorageFormat(f);
            run.in_descs[size_t(k)].SetOriginFormat(f);
        }
        in_json += std::string(ir ? "," : "") + "{\"name\":" + json_str(p.name_) + ",\"present\":" +
                   (k >= 0 ? "true" : "false") + ",\"dtype\":" +
                   json_str(k >= 0 ? ge::tuner_data_type_name(in_dtype_ir[ir]) : "") + ",\"format\":" +
                   std::to_string(int(f)) + ",\"shape\":" +
                   (k >= 0 ? shape_json(run.in_shapes[size_t(k)].GetOriginShape()) : "[]") + "}";
    }
    in_json += "]";

    // Outputs: dtype from the same column (or the input they follow), shape from InferShape.
    const size_t n_out = def->outputs_.size();
    std::vector<int> follow(n_out, -1);
    for (size_t o = 0; o < n_out; ++o) {
        const ops::OpParamDef& p = param_of(def->outputs_[o], false);
        if (p.param_type_ == ops::DYNAMIC)
            fail("unsupported", "output '" + p.name_ + "' is DYNAMIC (a tensor list): not supported by the tuner simulator");
        const std::string& fname = def->outputs_[o].follow_.empty() ? p.follow_ : def->outputs_[o].follow_;
        for (size_t ir = 0; ir < def->inputs_.size(); ++ir)
            if (!fname.empty() && def->inputs_[ir].name_ == fname) follow[o] = run.input_instance[ir];
        ge::DataType dt = ge::DT_UNDEFINED;
        if (follow[o] >= 0) dt = run.in_descs[size_t(follow[o])].GetDataType();
        else if (p.dtype_list_ && !p.dtypes_.empty()) {
            dt = p.dtypes_[0];
            if (!run.in_descs.empty() && std::count(p.dtypes_.begin(), p.dtypes_.end(), run.in_descs[0].GetDataType()))
                dt = run.in_descs[0].GetDataType();
        } else if (column >= 0 && size_t(column) < p.dtypes_.size()) dt = p.dtypes_[size_t(column)];
        else if (!run.in_descs.empty()) dt = run.in_descs[0].GetDataType();
        gert::CompileTimeTensorDesc desc;
        desc.SetDataType(dt);
        ge::Format f = column >= 0 && size_t(column) < p.formats_.size() ? p.formats_[size_t(column)] : ge::FORMAT_ND;
        desc.SetStorageFormat(f);
        desc.SetOriginFormat(f);
        run.out_descs.push_back(desc);
        run.out_dtypes_inferred.push_back(dt);
        run.out_shapes.emplace_back();
    }

    // Attrs, in the OpDef's order: the given value, else the default.
    for (const auto& a : def->attrs_) {
        gert::TunerAttrValue v = a.value_;
        auto it = std::find_if(given_attrs.begin(), given_attrs.end(), [&](auto& g) { return g.first == a.name_; });
        if (it != given_attrs.end()) {
            std::string why;
            if (!parse_attr(it->second, v, why))
                fail("usage", "attr '" + a.name_ + "' takes " + why + ", not '" + it->second + "'");
        } else if (a.required_ && !a.has_default_) {
            fail("usage", "missing required attr '" + a.name_ + "' (" + attr_kind_name(a.value_.kind) + ")");
        }
        run.attrs.attrs_.push_back(v);
    }
    for (const auto& g : given_attrs)
        if (std::none_of(def->attrs_.begin(), def->attrs_.end(), [&](auto& a) { return a.name_ == g.first; }))
            fail("usage", "the op has no attr named '" + g.first + "'");
    std::string attrs_json = "{";
    for (size_t i = 0; i < def->attrs_.size(); ++i)
        attrs_json += std::string(i ? "," : "") + json_str(def->attrs_[i].name_) + ":" + attr_json(run.attrs.attrs_[i]);
    attrs_json += "}";

    OpImpl& impl = op_impls()[op_name];
    std::string infer = "none";
    gert::InferShapeKernelFunc infer_shape = def->infer_shape_ ? def->infer_shape_ : impl.infer_shape;
    if (infer_shape) {
        gert::InferShapeContext ctx(&run);
        ge::graphStatus st = infer_shape(&ctx);
        if (st != ge::GRAPH_SUCCESS)
            fail("infer-shape", "the InferShape function of " + op_name + " returned failure (" + std::to_string(st) + ")");
        infer = "op";
        for (auto& s : run.out_shapes) s.MutableStorageShape() = s.GetOriginShape();
    } else {
        for (size_t o = 0; o < n_out; ++o) {
            int src = follow[o] >= 0 ? follow[o] : run.in_shapes.empty() ? -1 : 0;
            if (src >= 0) run.out_shapes[o] = run.in_shapes[size_t(src)];
        }
    }
    gert::InferDataTypeKernelFunc infer_dtype = def->infer_dtype_ ? def->infer_dtype_ : impl.infer_dtype;
    if (infer_dtype) {
        gert::InferDataTypeContext ctx(&run);
        if (infer_dtype(&ctx) == ge::GRAPH_SUCCESS) {
            for (size_t o = 0; o < n_out; ++o)
                if (run.out_dtypes_inferred[o] != run.out_descs[o].GetDataType() && run.out_dtypes_inferred[o] != ge::DT_UNDEFINED)
                    warnings().push_back("InferDataType gives output '" + def->outputs_[o].name_ + "' " +
                                         ge::tuner_data_type_name(run.out_dtypes_inferred[o]) + ", the OpDef's DataType table " +
                                         ge::tuner_data_type_name(run.out_descs[o].GetDataType()) + "; the table's is used");
        }
    }
    std::string out_json = "[";
    for (size_t o = 0; o < n_out; ++o) {
        const gert::Shape& s = run.out_shapes[o].GetOriginShape();
        for (size_t d = 0; d < s.GetDimNum(); ++d)
            if (s.GetDim(d) < 0)
                fail("infer-shape", "output '" + def->outputs_[o].name_ + "' has a negative dimension after InferShape: " + shape_json(s));
        out_json += std::string(o ? "," : "") + "{\"name\":" + json_str(def->outputs_[o].name_) + ",\"dtype\":" +
                    json_str(ge::tuner_data_type_name(run.out_descs[o].GetDataType())) + ",\"format\":" +
                    std::to_string(int(run.out_descs[o].GetStorageFormat())) + ",\"shape\":" + shape_json(s) + "}";
    }
    out_json += "]";
    std::string body = head + ",\"inputs\":" + in_json + ",\"outputs\":" + out_json + ",\"attrs\":" + attrs_json +
                       ",\"infer_shape\":" + json_str(infer);

    gert::TilingKernelFunc tiling = def->aicore_.tiling_ ? def->aicore_.tiling_ : impl.tiling;
    if (!tiling) {
        errors().push_back("no tiling function: the OpDef has no AICore().SetTiling(...) and no IMPL_OP_OPTILING(" + op_name + ").Tiling(...)");
        finish(body + ",\"status\":\"no-tiling\"");
    }
    if (impl.compile_info) run.compile_info = impl.compile_info();
    if (impl.tiling_parse) {
        gert::TilingParseContext pctx(&run);
        if (impl.tiling_parse(&pctx) != ge::GRAPH_SUCCESS) {
            errors().push_back("the TilingParse function of " + op_name + " returned failure");
            finish(body + ",\"status\":\"tiling\"");
        }
    }
    std::vector<uint64_t> words((capacity + 7) / 8, 0);
    gert::TilingData raw;
    raw.Init(capacity, words.data());
    run.tiling = &raw;
    gert::TilingContext ctx(&run);
    ge::graphStatus st;
    try {
        st = tiling(&ctx);
    } catch (const std::exception& e) {
        errors().push_back(std::string("the tiling function of ") + op_name + " threw " + e.what());
        finish(body + ",\"status\":\"tiling\"");
    }
    if (st != ge::GRAPH_SUCCESS) {
        errors().push_back("the tiling function of " + op_name + " returned failure (" +
                           (st == ge::GRAPH_FAILED ? std::string("ge::GRAPH_FAILED") : std::to_string(st)) + ")");
        finish(body + ",\"status\":\"tiling\"");
    }
    size_t used_bytes = raw.GetDataSize();
    // The bytes the tiling function wrote, whether or not it set the data size (kept for the report).
    size_t written = 0;
    const uint8_t* bytes = static_cast<const uint8_t*>(raw.GetData());
    for (size_t i = 0; i < capacity; ++i)
        if (bytes[i]) written = i + 1;
    std::string ws = "[";
    for (size_t i = 0; i < run.workspaces.size(); ++i) ws += (i ? "," : "") + std::to_string(run.workspaces[i]);
    ws += "]";
    finish(body + ",\"status\":\"ok\",\"block_dim\":" + std::to_string(run.block_dim) + ",\"block_dim_set\":" +
           (run.block_dim_set ? "true" : "false") + ",\"tiling_key\":" + std::to_string(run.tiling_key) +
           ",\"tiling_size\":" + std::to_string(used_bytes) + ",\"tiling_written\":" + std::to_string(written) +
           ",\"tiling_capacity\":" + std::to_string(capacity) + ",\"tiling_hex\":" +
           json_str(to_hex(bytes, std::max(used_bytes, written))) + ",\"workspaces\":" + ws +
           ",\"need_atomic\":" + (run.need_atomic ? "true" : "false") + ",\"schedule_mode\":" +
           std::to_string(run.schedule_mode));
}
}  // namespace cann
}  // namespace tuner_sim

void gert::TilingData::tuner_overflow(size_t wanted, size_t capacity, const char* how) {
    if (tuner_sim::cann::overflow_reported()) return;
    tuner_sim::cann::errors().push_back(std::string("the tiling data (") + std::to_string(wanted) +
                                        " bytes, through " + how + ") is bigger than the tiling buffer (" +
                                        "GetRawTilingData()->GetCapacity() = " + std::to_string(capacity) + " bytes)");
}

fe::PlatFormInfos* platform_ascendc::tuner_platform_infos() { return &tuner_sim::cann::platform(); }

int main(int argc, char** argv) { return tuner_sim::cann::host_main(argc, argv); }
