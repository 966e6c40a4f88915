#include "../op_kernel/column_sum_tiling.h"
#include "register/op_def_registry.h"
#include "register/op_impl_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus ColumnSumTilingFunc(gert::TilingContext* context)
{
    const gert::Shape& shape = context->GetInputShape(0)->GetStorageShape();
    if (shape.GetDimNum() != 2) {
        return ge::GRAPH_FAILED;
    }
    uint32_t rows = static_cast<uint32_t>(shape.GetDim(0));
    uint32_t cols = static_cast<uint32_t>(shape.GetDim(1));
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t cores = platform.GetCoreNumAiv();
    uint32_t blockDim = std::min(rows, cores);
    ColumnSumTiling* t = context->GetTilingData<ColumnSumTiling>();
    t->rows = rows;
    t->cols = cols;
    t->rowsPerCore = rows / blockDim;
    t->tailRows = rows % blockDim;
    context->SetBlockDim(blockDim);
    size_t* ws = context->GetWorkspaceSizes(1);
    ws[0] = platform.GetLibApiWorkSpaceSize() + static_cast<size_t>(blockDim) * cols * sizeof(float);
    return ge::GRAPH_SUCCESS;
}

struct ColumnSumCompileInfo {};
static ge::graphStatus ColumnSumTilingParse(gert::TilingParseContext* context) { return ge::GRAPH_SUCCESS; }
IMPL_OP_OPTILING(ColumnSum).Tiling(ColumnSumTilingFunc).TilingParse<ColumnSumCompileInfo>(ColumnSumTilingParse);
}  // namespace optiling

namespace ge {
static ge::graphStatus ColumnSumInferShape(gert::InferShapeContext* context)
{
    const gert::Shape* x = context->GetInputShape(0);
    gert::Shape* y = context->GetOutputShape(0);
    y->SetDimNum(1);
    y->SetDim(0, x->GetDim(1));
    return GRAPH_SUCCESS;
}
IMPL_OP_INFERSHAPE(ColumnSum).InferShape(ColumnSumInferShape);
}  // namespace ge

namespace ops {
class ColumnSum : public OpDef {
public:
    explicit ColumnSum(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ColumnSum);
}  // namespace ops
