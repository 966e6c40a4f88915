// The high-level SoftMax API with its host tiling (SoftMaxTilingFunc into a TILING_DATA_FIELD_DEF_STRUCT).
#include "softmax_adv_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const gert::Shape& shape = context->GetInputShape(0)->GetStorageShape();
    uint32_t rows = shape.GetDim(0);
    uint32_t cols = shape.GetDim(1);
    uint32_t blockDim = 4;
    if (rows % blockDim != 0) {
        return ge::GRAPH_FAILED;
    }
    SoftmaxAdvTilingData tiling;
    tiling.set_rowsPerCore(rows / blockDim);
    tiling.set_cols(cols);
    std::vector<int64_t> shapeVec = {static_cast<int64_t>(rows / blockDim), static_cast<int64_t>(cols)};
    ge::Shape srcShape(shapeVec);
    uint32_t tmpBytes = AscendC::GetSoftMaxMinTmpSize(srcShape, sizeof(float), false);
    tiling.set_tmpBytes(tmpBytes);
    AscendC::SoftMaxTilingFunc(srcShape, sizeof(float), tmpBytes, tiling.softmaxTilingData);
    context->SetBlockDim(blockDim);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class SoftmaxAdv : public OpDef {
public:
    explicit SoftmaxAdv(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(SoftmaxAdv);
}  // namespace ops
