#version 330 core
// One level of a matrix texture's reduction pyramid: each texel reduces the 2×2 texels below it (the last row and
// column also take an odd remainder), by the largest value or by the entry of largest magnitude with its sign —
// the same reductions as the pooled views (core/backend/interface/pooling.h) and the heatmap's pixels (heatmap.frag).
uniform sampler2D u_src;   // the level below, bound as the texture's only level
uniform int u_signed;      // 1: largest magnitude with its sign; 0: largest value
uniform ivec2 u_dst_size;  // size of the level written
out vec4 frag;
void main() {
    ivec2 d = ivec2(gl_FragCoord.xy), src = textureSize(u_src, 0);
    ivec2 a = 2 * d, b = min(a + 2, src);
    if (d.x == u_dst_size.x - 1) b.x = src.x;
    if (d.y == u_dst_size.y - 1) b.y = src.y;
    float acc = u_signed == 1 ? 0.0 : -3.0e38;
    for (int y = a.y; y < b.y; ++y)
        for (int x = a.x; x < b.x; ++x) {
            float v = texelFetch(u_src, ivec2(x, y), 0).r;
            acc = u_signed == 1 ? (abs(v) > abs(acc) ? v : acc) : max(acc, v);
        }
    frag = vec4(acc, 0.0, 0.0, 1.0);
}
