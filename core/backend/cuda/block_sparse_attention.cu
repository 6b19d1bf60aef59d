// attnscope — block-sparse attention on CUDA: uploads Q, K, V and the layout arrays, then takes one of two routes:
//  - by query block (block_sparse_attention.cuh): the work items of block_sparse_split.cuh (a query block, or a part
//    of a long one), then the parts of split rows combined;
//  - by key block (block_sparse_gather.cuh), when that scores less than half the cells: each key block's gathered
//    rows, then every query's rows merged.
// Downloads O and lse.
#include <string>

#include "core/backend/cuda/block_sparse_attention.cuh"
#include "core/backend/cuda/block_sparse_gather.cuh"
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

template <int D, int BC, bool kSliced>
void launch_gathered_bucket(cudaStream_t stream, const BlockSparseParams& p, const BlockSparseGatherParams& g,
                            int items, int H) {
    constexpr int smem_bytes = block_sparse_gathered_smem_floats(D, BC) * int(sizeof(float));
    allow_dynamic_smem(reinterpret_cast<const void*>(&block_sparse_gathered_kernel<D, BC, kSliced>), smem_bytes,
                       "the gathered block-sparse kernel for head dim " + std::to_string(D), "use --backend cpu");
    const dim3 grid(unsigned(items), unsigned(p.layout.heads == 1 ? H : 1),
                    unsigned(attention_output_slices(kSliced, p.dv)));
    block_sparse_gathered_kernel<D, BC, kSliced><<<grid, kFlashThreads, smem_bytes, stream>>>(p, g);
    ATTNSCOPE_CHECK_LAUNCH("block_sparse_gathered_kernel");
}

/// The route by key block: the plan's arrays uploaded, the gathered kernel into partial slots, then every query's
/// slots merged into p.O and p.lse.
void run_gathered(Context& ctx, BlockSparseParams p, const BlockSparseGatherPlan& plan, int H) {
    const size_t slots = size_t(plan.rows()) * (p.layout.heads == 1 ? H : 1);
    require_device_memory(slots * (size_t(p.dv) + 1) * sizeof(float), "block-sparse attention's gathered rows");
    const DeviceBuffer<int> dFirst = upload_array(ctx, plan.item_first.data(), plan.item_first.size(), "gathered items");
    const DeviceBuffer<int> dBlock = upload_array(ctx, plan.item_block.data(), plan.item_block.size(), "item key blocks");
    const DeviceBuffer<int> dHead = upload_array(ctx, plan.item_head.data(), plan.item_head.size(), "item heads");
    const DeviceBuffer<int> dQuery = upload_array(ctx, plan.row_query.data(), plan.row_query.size(), "gathered queries");
    const DeviceBuffer<int> dEntry = upload_array(ctx, plan.row_entry.data(), plan.row_entry.size(), "gathered entries");
    const DeviceBuffer<int> dPtr = upload_array(ctx, plan.query_ptr.data(), plan.query_ptr.size(), "query index");
    const DeviceBuffer<int> dRows = upload_array(ctx, plan.query_rows.data(), plan.query_rows.size(), "query rows");
    DeviceBuffer<float> dOPartial(slots * p.dv, "O of gathered rows"), dLPartial(slots, "lse of gathered rows");
    p.heads = H, p.O_partial = dOPartial.get(), p.lse_partial = dLPartial.get();
    const BlockSparseGatherParams g{dFirst.get(), dBlock.get(), dHead.get(), dQuery.get(),
                                    dEntry.get(), dPtr.get(),   dRows.get()};
    if (plan.items() > 0) {  // none: nothing is stored, and the merge writes O = 0, lse = −inf everywhere
        const int dim = p.d > p.dv ? p.d : p.dv;
        with_attention_bucket(dim, [&]<int D, int BC, bool kSliced>() {
            launch_gathered_bucket<D, BC, kSliced>(ctx.stream(), p, g, plan.items(), H);
        });
    }
    const int64_t threads = int64_t(H) * p.layout.n * (p.dv + 1);
    block_sparse_gathered_combine_kernel<<<unsigned(ceil_div(threads, kBlockSparseCombineThreads)),
                                           kBlockSparseCombineThreads, 0, ctx.stream()>>>(p, g);
    ATTNSCOPE_CHECK_LAUNCH("block_sparse_gathered_combine_kernel");
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
    // Stored blocks that let only some of their rows see anything may make the route by key block pay; planning it
    // reads every mask row, so a layout of dense blocks alone is not planned.
    if (!layout.masks.empty()) {
        const BlockSparseGatherPlan plan = plan_block_sparse_gather(layout);
        if (gather_pays(layout, plan)) {
            run_gathered(ctx, p, plan, s.H);
            download(ctx, dO.get(), O, v);
            if (lse) download(ctx, dL.get(), lse, l);
            return;
        }
    }
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
