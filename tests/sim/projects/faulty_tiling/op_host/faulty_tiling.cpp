#include "register/op_def_registry.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(FaultyTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, length);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(FaultyTiling, FaultyTilingData)

BEGIN_TILING_DATA_DEF(HugeTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, length);
  TILING_DATA_FIELD_DEF_ARR(uint32_t, 20000, table);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(FaultyTiling_3, HugeTilingData)

// mode 0: a correct tiling; 1: no SetBlockDim; 2: a tiling key the kernel has no branch for;
// 3: tiling data bigger than the buffer; lengths that are not a multiple of 64 make the tiling fail.
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    uint32_t length = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    if (length % 64 != 0) {
        return ge::GRAPH_FAILED;
    }
    int64_t mode = *context->GetAttrs()->GetInt(0);
    if (mode != 1) {
        context->SetBlockDim(1);
    }
    context->SetTilingKey(mode == 2 ? 5 : mode == 3 ? 3 : 1);
    if (mode == 3) {
        HugeTilingData huge;
        huge.set_length(length);
        huge.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
        context->GetRawTilingData()->SetDataSize(huge.GetDataSize());
        return ge::GRAPH_SUCCESS;
    }
    FaultyTilingData tiling;
    tiling.set_length(length);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class FaultyTiling : public OpDef {
public:
    explicit FaultyTiling(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Attr("mode").AttrType(OPTIONAL).Int(0);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(FaultyTiling);
}  // namespace ops
