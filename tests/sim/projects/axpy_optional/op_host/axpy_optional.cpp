// y = alpha * x (+ beta * bias when the optional input is given); exercises the host API broadly.
#include "axpy_optional_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "graph/utils/type_utils.h"

namespace optiling {
struct AxpyCompileInfo {
    uint32_t coreNum = 0;
};

static ge::graphStatus AxpyTiling(gert::TilingContext* context)
{
    const auto* platformInfo = context->GetPlatformInfo();
    if (platformInfo == nullptr) {
        return ge::GRAPH_FAILED;
    }
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    auto* manager = platform_ascendc::PlatformAscendCManager::GetInstance();
    if (manager->GetCoreNumAiv() != platform.GetCoreNumAiv() || platform.GetCoreNum() == 0) {
        return ge::GRAPH_FAILED;
    }
    if (platform.GetSocVersion() != platform_ascendc::SocVersion::ASCEND910B) {
        return ge::GRAPH_FAILED;
    }
    uint64_t ub = 0, l1 = 0, l2 = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L1, l1);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L2, l2);
    if (ub == 0 || l1 == 0 || l2 == 0) {
        return ge::GRAPH_FAILED;
    }
    ge::DataType dtype = context->GetInputDesc(0)->GetDataType();
    int typeSize = ge::GetSizeByDataType(dtype);
    uint32_t length = static_cast<uint32_t>(context->GetInputTensor(0)->GetShapeSize());
    uint32_t align = 32 / typeSize;
    uint32_t cores = platform.CalcTschBlockDim(length / align, 0, platform.GetCoreNumAiv());
    uint32_t blockDim = std::min<uint32_t>(cores, std::max<uint32_t>(1, length / 256));
    while (length % (blockDim * align) != 0) {
        --blockDim;
    }
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    const float* alpha = attrs->GetAttrPointer<float>(0);
    const char* mode = attrs->GetStr(1);
    const gert::TypedContinuousVector<int64_t>* pad = attrs->GetListInt(2);
    const bool* useBias = attrs->GetBool(3);
    if (alpha == nullptr || mode == nullptr || pad == nullptr || pad->GetSize() != 2 || useBias == nullptr) {
        return ge::GRAPH_FAILED;
    }
    const gert::StorageShape* bias = context->GetOptionalInputShape(1);
    context->SetBlockDim(blockDim);
    auto* compileInfo = context->GetCompileInfo<AxpyCompileInfo>();
    (void)compileInfo;
    if (bias != nullptr && *useBias) {
        AxpyBiasTilingData t;
        t.set_length(length);
        t.set_perCore(length / blockDim);
        t.set_alpha(std::string(mode) == "negate" ? -*alpha : *alpha);
        t.set_beta(2.0f);
        context->SetTilingKey(7);
        t.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
        context->GetRawTilingData()->SetDataSize(t.GetDataSize());
    } else {
        AxpyOptionalTilingData t;
        t.set_length(length);
        t.set_perCore(length / blockDim);
        t.set_alpha(std::string(mode) == "negate" ? -*alpha : *alpha);
        t.set_offset(-1);
        int32_t padValues[2] = {static_cast<int32_t>(pad->GetData()[0]), static_cast<int32_t>(pad->GetData()[1])};
        t.set_pad(padValues);
        context->SetTilingKey(dtype == ge::DT_FLOAT16 ? 1 : 2);
        t.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
        context->GetRawTilingData()->SetDataSize(t.GetDataSize());
    }
    size_t* ws = context->GetWorkspaceSizes(1);
    ws[0] = 0;
    return ge::GRAPH_SUCCESS;
}

static ge::graphStatus AxpyTilingParse(gert::TilingParseContext* context)
{
    auto* info = context->GetCompiledInfo<AxpyCompileInfo>();
    info->coreNum = 1;
    return ge::GRAPH_SUCCESS;
}
IMPL_OP_OPTILING(AxpyOptional).TilingParse<AxpyCompileInfo>(AxpyTilingParse);
}  // namespace optiling

namespace ge {
static graphStatus AxpyInferShape(gert::InferShapeContext* context)
{
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class AxpyOptional : public OpDef {
public:
    explicit AxpyOptional(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("bias").ParamType(OPTIONAL).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("alpha").AttrType(REQUIRED).Float();
        this->Attr("mode").AttrType(OPTIONAL).String("plain");
        this->Attr("pad").AttrType(OPTIONAL).ListInt({0, 0});
        this->Attr("use_bias").AttrType(OPTIONAL).Bool(true);
        this->SetInferShape(ge::AxpyInferShape);
        OpAICoreConfig config;
        config.DynamicCompileStaticFlag(true).DynamicRankSupportFlag(true).DynamicShapeSupportFlag(true);
        this->AICore().SetTiling(optiling::AxpyTiling).AddConfig("ascend910b", config);
    }
};
OP_ADD(AxpyOptional);
}  // namespace ops
