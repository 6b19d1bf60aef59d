#version 330 core
// Colours one screen pixel of a matrix: the cells the pixel covers are reduced by meaning — the largest weight (or,
// for signed values, the entry of largest magnitude with its sign) and the most salient reason — so a one-cell
// column, row or diagonal stays visible at any size; then value -> scale -> 1-D colormap, then the optional reason
// overlay (allowed cells tinted by reason, forbidden cells dimmed). The footprint is read at the mip level of the
// max pyramid (shaders/reduce_*.frag) where it spans at most 8 texels per axis: exact up to 8 cells per pixel and
// axis; past that the aligned texels read may reach less than a quarter of the footprint beyond it (a feature can
// show in a neighbouring pixel too, never in none).
in vec2 v_uv;
out vec4 frag;
uniform sampler2D u_values;      // R32F matrix (pooled for large n) with its reduction pyramid as mip levels
uniform usampler2D u_mask;       // R8UI reason codes, same size and levels as u_values (or 1x1 when absent)
uniform sampler1D u_colormap;    // 256 RGB entries (core/analysis/colormap.h tables)
uniform int u_mode;              // 0 linear, 1 log10, 2 diverging linear, 3 diverging symmetric log
uniform float u_vmax;            // top of the scale (max |v| for the diverging modes)
uniform float u_decades;         // log modes: decades shown below u_vmax
uniform int u_show_mask;         // 1: overlay reasons
uniform int u_has_mask;          // 0: no mask texture; every cell is allowed (causality still applies)
uniform int u_causal;            // 1: cells with j > i are forbidden when there is no mask texture
uniform vec4 u_cells;            // matrix region of this texture in cells: col0, row0, col1, row1
uniform float u_mask_alpha;      // how strongly reason colours tint allowed cells
uniform vec3 u_reason_colors[32];  // core/reason.h: Reason::Count must stay ≤ 32
uniform int u_reason_salience[32]; // core/reason.h reason_salience: which reason a pixel of several shows
uniform vec2 u_texels_per_pixel; // level-0 texels per framebuffer pixel along x and y
uniform int u_reduce;            // 1: each pixel reduces every texel it covers; 0: one texel per pixel (nearest)
uniform int u_signed;            // 1: values reduce to the entry of largest magnitude (else the largest)
uniform int u_levels;            // mip levels of the textures (1: level 0 only)

float log10f(float x) { return log(x) / log(10.0); }

int salience(uint r) { return r < 32u ? u_reason_salience[r] : -1; }

void main() {
    ivec2 size = textureSize(u_values, 0);
    vec2 t = v_uv * vec2(size);
    ivec2 lo = clamp(ivec2(floor(t)), ivec2(0), size - 1), hi = lo;
    if (u_reduce == 1) {  // the texels under this pixel, per axis (one texel when magnified)
        vec2 h = 0.5 * u_texels_per_pixel;
        if (u_texels_per_pixel.x > 1.0) lo.x = int(floor(t.x - h.x + 1e-3)), hi.x = int(ceil(t.x + h.x - 1e-3)) - 1;
        if (u_texels_per_pixel.y > 1.0) lo.y = int(floor(t.y - h.y + 1e-3)), hi.y = int(ceil(t.y + h.y - 1e-3)) - 1;
        lo = clamp(lo, ivec2(0), size - 1);
        hi = clamp(hi, lo, size - 1);
    }
    int level = 0;
    while (level + 1 < u_levels && max((hi.x >> level) - (lo.x >> level), (hi.y >> level) - (lo.y >> level)) >= 8) ++level;
    ivec2 level_size = textureSize(u_values, level);
    ivec2 a = min(lo >> level, level_size - 1), b = min(hi >> level, level_size - 1);
    float v = u_signed == 1 ? 0.0 : -3.0e38;
    uint r = 0u;
    for (int y = a.y; y <= b.y; ++y)
        for (int x = a.x; x <= b.x; ++x) {
            float c = texelFetch(u_values, ivec2(x, y), level).r;
            v = u_signed == 1 ? (abs(c) > abs(v) ? c : v) : max(v, c);
            if (u_has_mask == 1) {
                uint m = texelFetch(u_mask, ivec2(x, y), level).r;
                if (salience(m) > salience(r)) r = m;
            }
        }
    float vmax = max(u_vmax, 1e-30);
    float s;
    if (u_mode == 0) {
        s = v / vmax;
    } else if (u_mode == 1) {
        s = v > 0.0 ? (log10f(v) - (log10f(vmax) - u_decades)) / u_decades : 0.0;
    } else if (u_mode == 2) {
        s = 0.5 + 0.5 * v / vmax;
    } else {
        float m = abs(v) / vmax;
        float l = m > 0.0 ? clamp(1.0 + log10f(m) / u_decades, 0.0, 1.0) : 0.0;
        s = 0.5 + 0.5 * sign(v) * l;
    }
    vec3 c = texture(u_colormap, clamp(s, 0.0, 1.0)).rgb;
    if (u_show_mask == 1) {
        if (u_has_mask == 0) {
            // Allowed when any covered cell has j ≤ i: the smallest column against the largest row.
            vec2 per_texel = vec2(u_cells.z - u_cells.x, u_cells.w - u_cells.y) / vec2(size);
            float first_col = floor(u_cells.x + float(lo.x) * per_texel.x);
            float last_row = ceil(u_cells.y + float(hi.y + 1) * per_texel.y) - 1.0;
            r = u_causal == 1 && first_col > last_row ? 0u : 1u;
        }
        if (r == 0u) c = mix(c, vec3(0.10, 0.10, 0.12), 0.85);
        else if (r != 1u) c = mix(c, u_reason_colors[min(r, 31u)], u_mask_alpha);  // 1 = dense: nothing to explain
    }
    frag = vec4(c, 1.0);
}
