#include "scaled_softmax_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const gert::StorageShape* xShape = context->GetInputShape(0);
    size_t dims = xShape->GetStorageShape().GetDimNum();
    if (dims < 1) {
        return ge::GRAPH_FAILED;
    }
    uint32_t cols = xShape->GetStorageShape().GetDim(dims - 1);
    uint32_t rows = xShape->GetStorageShape().GetShapeSize() / cols;
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    const float* scale = attrs->GetFloat(0);
    const int64_t* maxRowsPerTile = attrs->GetInt(1);

    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t cores = platform.GetCoreNumAiv();
    uint32_t blockDim = rows < cores ? rows : cores;
    // in + out + one work row: 3 * cols floats per row in flight; leave room for the reduce scratch.
    uint32_t fit = static_cast<uint32_t>((ubSize / 2) / (3 * cols * sizeof(float)));
    if (fit == 0) {
        return ge::GRAPH_FAILED;  // a row does not fit in UB
    }
    uint32_t rowsPerTile = fit < static_cast<uint32_t>(*maxRowsPerTile) ? fit : static_cast<uint32_t>(*maxRowsPerTile);

    ScaledSoftmaxTilingData tiling;
    tiling.set_rows(rows);
    tiling.set_cols(cols);
    tiling.set_scale(*scale);
    tiling.set_rowsPerTile(static_cast<uint16_t>(rowsPerTile));
    uint16_t reserved[3] = {7, 8, 9};
    tiling.set_reserved(reserved);
    tiling.split.set_rowsPerCore(rows / blockDim);
    tiling.split.set_tailRows(rows % blockDim);
    context->SetBlockDim(blockDim);
    context->SetTilingKey(rowsPerTile > 1 ? 2 : 1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* ws = context->GetWorkspaceSizes(1);
    ws[0] = platform.GetLibApiWorkSpaceSize();
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class ScaledSoftmax : public OpDef {
public:
    explicit ScaledSoftmax(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("scale").AttrType(OPTIONAL).Float(1.0);
        this->Attr("max_rows_per_tile").AttrType(OPTIONAL).Int(4);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b").AddConfig("ascend910_93");
    }
};
OP_ADD(ScaledSoftmax);
}  // namespace ops
