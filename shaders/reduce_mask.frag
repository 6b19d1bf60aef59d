#version 330 core
// One level of a reason mask's pyramid: each texel keeps the most salient reason of the 2×2 texels below it (the
// last row and column also take an odd remainder), as the pooled masks do (core/session/worker.cpp pool_mask).
uniform usampler2D u_src;            // the level below, bound as the texture's only level
uniform ivec2 u_dst_size;            // size of the level written
uniform int u_reason_salience[32];   // core/reason.h reason_salience
out uint frag;
int salience(uint r) { return r < 32u ? u_reason_salience[r] : -1; }
void main() {
    ivec2 d = ivec2(gl_FragCoord.xy), src = textureSize(u_src, 0);
    ivec2 a = 2 * d, b = min(a + 2, src);
    if (d.x == u_dst_size.x - 1) b.x = src.x;
    if (d.y == u_dst_size.y - 1) b.y = src.y;
    uint best = 0u;
    for (int y = a.y; y < b.y; ++y)
        for (int x = a.x; x < b.x; ++x) {
            uint r = texelFetch(u_src, ivec2(x, y), 0).r;
            if (salience(r) > salience(best)) best = r;
        }
    frag = best;
}
