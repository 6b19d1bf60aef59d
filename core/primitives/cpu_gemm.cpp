#include <omp.h>

#include "cpu_primitives.h"

namespace attnscope {

void cpu_gemm(const Tensor3& A, bool ta, const Tensor3& B, bool tb, float alpha, float beta, Tensor3& C) {
    const int H = C.heads();
    if ((A.heads() != H && A.heads() != 1) || (B.heads() != H && B.heads() != 1))
        throw Error("gemm: A " + A.shape_string() + " and B " + B.shape_string() + " must have " + std::to_string(H) +
                    " heads (or 1, broadcast) like C " + C.shape_string());
    const int r = ta ? A.cols() : A.rows(), k = ta ? A.rows() : A.cols();
    const int kb = tb ? B.cols() : B.rows(), c = tb ? B.rows() : B.cols();
    if (k != kb || r != C.rows() || c != C.cols())
        throw Error("gemm: op(A) is " + std::to_string(r) + "×" + std::to_string(k) + ", op(B) is " + std::to_string(kb) +
                    "×" + std::to_string(c) + " and C is " + C.shape_string() + ": inner or outer sizes differ");
    // Few large heads: let Eigen thread each product. Many heads: one head per thread.
    auto one = [&](int h) {
        ConstMatView a = A.head(A.heads() == 1 ? 0 : h), b = B.head(B.heads() == 1 ? 0 : h);
        MatView out = C.head(h);
        if (beta == 0.0f) out.setZero();
        else if (beta != 1.0f) out *= beta;
        if (!ta && !tb) out.noalias() += alpha * a * b;
        else if (ta && !tb) out.noalias() += alpha * a.transpose() * b;
        else if (!ta && tb) out.noalias() += alpha * a * b.transpose();
        else out.noalias() += alpha * a.transpose() * b.transpose();
    };
    if (H >= omp_get_max_threads()) {
#pragma omp parallel for schedule(dynamic)
        for (int h = 0; h < H; ++h) one(h);
    } else {
        for (int h = 0; h < H; ++h) one(h);
    }
}

}  // namespace attnscope
