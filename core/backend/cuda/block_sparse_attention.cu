// attnscope — block-sparse attention on CUDA: uploads Q, K, V, the layout arrays and the work items of
// block_sparse_split.cuh (one thread block per (item, head): a query block, or a part of a long one), launches the
// kernel of block_sparse_attention.cuh, combines the parts of split rows, downloads O and lse.
#include <string>

#include "core/backend/cuda/block_sparse_attention.cuh"
#include "core/backend/cuda/block_sparse_split.cuh"

namespace attnscope::cuda {

namespace {

template <int D, int BC, bool kSliced>
void launch_block_sparse_bucket(cudaStream_t stream, const BlockSparseParams& p, int H) {
    constexpr int smem_bytes = block_sparse_smem_floats(D, BC) * int(sizeof(float));
    allow_dynamic_smem(block_sparse_attention_kernel<D, BC, kSliced>, smem_bytes,
                       "the block-sparse kernel for head dim " + std::to_string(D), "use --backend cpu");
    const int items = p.item_row ? p.item_count : p.layout.block_rows;
    const dim3 grid(unsigned(items), unsigned(H), unsigned(attention_output_slices(kSliced, p.dv)));
    block_sparse_attention_kernel<D, BC, kSliced><<<grid, kFlashThreads, smem_bytes, stream>>>(p);
    ATTNSCOPE_CHECK_LAUNCH("block_sparse_attention_kernel");
}

}  // namespace

void launch_block_sparse_attention(cudaStream_t stream, const BlockSparseParams& p, int H) {
    if (H == 0 || p.layout.n == 0) return;
    if (H > 65535)
        throw Error("the CUDA block-sparse kernel takes at most 65535 heads per call (got " + std::to_string(H) + ")");
    if (attention_output_slices(true, p.dv) > 65535)
        throw Error("the CUDA block-sparse kernel takes value dims up to " + std::to_string(65535 * kMaxFlashHeadDim) +
                    " (got " + std::to_string(p.dv) + "): use --backend cpu");
    const int dim = p.d > p.dv ? p.d : p.dv;
    with_attention_bucket(dim, [&]<int D, int BC, bool kSliced>() { launch_block_sparse_bucket<D, BC, kSliced>(stream, p, H); });
}

void block_sparse_attention(Context& ctx, const BlockSparseShape& s, const BlockLayout& layout, const float* Q,
                            const float* K, const float* V, float* O, float* lse) {
    if (s.H == 0 || s.n == 0) return;
    const size_t q = size_t(s.H) * s.n * s.d, v = size_t(s.H) * s.n * s.dv, l = lse ? size_t(s.H) * s.n : 0;
    const size_t layout_bytes = layout.row_ptr.size() * sizeof(int) + layout.col_idx.size() * 2 * sizeof(int) +
                                layout.masks.size() * sizeof(uint64_t);
    require_device_memory((2 * q + 2 * v + l) * sizeof(float) + layout_bytes,
                          "block-sparse attention (H = " + std::to_string(s.H) + ", n = " + std::to_string(s.n) +
                              ", block " + std::to_string(layout.block) + ")");
    const DeviceInput dQ = upload_input(ctx, Q, q, "Q"), dK = upload_input(ctx, K, q, "K"), dV = upload_input(ctx, V, v, "V");
    DeviceBuffer<int> dRow = upload_array(ctx, layout.row_ptr.data(), layout.row_ptr.size(), "layout row_ptr");
    DeviceBuffer<int> dCol = upload_array(ctx, layout.col_idx.data(), layout.col_idx.size(), "layout col_idx");
    DeviceBuffer<int> dMaskIdx = upload_array(ctx, layout.mask_idx.data(), layout.mask_idx.size(), "layout mask_idx");
    DeviceBuffer<uint64_t> dMasks = upload_array(ctx, layout.masks.data(), layout.masks.size(), "layout masks");
    DeviceBuffer<float> dO(v, "O"), dL(l, "lse");
    BlockLayoutView view = layout.view();
    view.row_ptr = dRow.get(), view.col_idx = dCol.get(), view.mask_idx = dMaskIdx.get(), view.masks = dMasks.get();
    BlockSparseParams p{dQ.get(), dK.get(), dV.get(), dO.get(), lse ? dL.get() : nullptr, view, s.d, s.dv,
                        s.scale, s.mod};
    // Long rows in parts (none for an even layout: then one item per query block, as without items).
    const BlockSparseWork work = plan_block_sparse_work(layout);
    const size_t partial_rows = size_t(work.slots) * s.H * layout.block;
    DeviceBuffer<int> dItemRow, dItemPart, dItemSlot;
    DeviceBuffer<float> dOPartial, dLPartial;
    if (work.slots > 0) {
        require_device_memory(partial_rows * (size_t(s.dv) + 1) * sizeof(float), "block-sparse attention's split rows");
        dItemRow = upload_array(ctx, work.item_row.data(), work.item_row.size(), "work items");
        dItemPart = upload_array(ctx, work.item_part.data(), work.item_part.size(), "work item parts");
        dItemSlot = upload_array(ctx, work.item_slot.data(), work.item_slot.size(), "work item slots");
        dOPartial = DeviceBuffer<float>(partial_rows * s.dv, "O of row parts");
        dLPartial = DeviceBuffer<float>(partial_rows, "lse of row parts");
        p.item_row = dItemRow.get(), p.item_part = dItemPart.get(), p.item_slot = dItemSlot.get();
        p.item_count = int(work.item_row.size()), p.part_blocks = work.part_blocks, p.heads = s.H;
        p.O_partial = dOPartial.get(), p.lse_partial = dLPartial.get();
    }
    launch_block_sparse_attention(ctx.stream(), p, s.H);
    if (work.slots > 0) {
        const int splits = int(work.split_row.size());
        DeviceBuffer<int> dSplitRow = upload_array(ctx, work.split_row.data(), size_t(splits), "split rows");
        DeviceBuffer<int> dSplitSlot = upload_array(ctx, work.split_slot.data(), size_t(splits), "split slots");
        DeviceBuffer<int> dSplitParts = upload_array(ctx, work.split_parts.data(), size_t(splits), "split parts");
        const int64_t threads = int64_t(splits) * s.H * layout.block * (s.dv + 1);
        block_sparse_combine_kernel<<<unsigned(ceil_div(threads, kBlockSparseCombineThreads)),
                                      kBlockSparseCombineThreads, 0, ctx.stream()>>>(p, dSplitRow.get(), dSplitSlot.get(),
                                                                                    dSplitParts.get(), splits);
        ATTNSCOPE_CHECK_LAUNCH("block_sparse_combine_kernel");
    }
    download(ctx, dO.get(), O, v);
    if (lse) download(ctx, dL.get(), lse, l);
}

}  // namespace attnscope::cuda
