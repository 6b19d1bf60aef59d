#version 330 core
// Colours one matrix cell: value -> scale (linear, log, diverging, symmetric log) -> 1-D colormap,
// then the optional reason overlay (allowed cells tinted by reason, forbidden cells dimmed).
in vec2 v_uv;
out vec4 frag;
uniform sampler2D u_values;      // R32F matrix (pooled for large n)
uniform usampler2D u_mask;       // R8UI reason codes, same size as u_values (or 1x1 when absent)
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

float log10f(float x) { return log(x) / log(10.0); }

void main() {
    float v = texture(u_values, v_uv).r;
    float vmax = max(u_vmax, 1e-30);
    float t;
    if (u_mode == 0) {
        t = v / vmax;
    } else if (u_mode == 1) {
        t = v > 0.0 ? (log10f(v) - (log10f(vmax) - u_decades)) / u_decades : 0.0;
    } else if (u_mode == 2) {
        t = 0.5 + 0.5 * v / vmax;
    } else {
        float a = abs(v) / vmax;
        float l = a > 0.0 ? clamp(1.0 + log10f(a) / u_decades, 0.0, 1.0) : 0.0;
        t = 0.5 + 0.5 * sign(v) * l;
    }
    vec3 c = texture(u_colormap, clamp(t, 0.0, 1.0)).rgb;
    if (u_show_mask == 1) {
        uint r = 1u;
        if (u_has_mask == 1) {
            r = texture(u_mask, v_uv).r;
        } else if (u_causal == 1) {
            float i = floor(mix(u_cells.y, u_cells.w, v_uv.y)), j = floor(mix(u_cells.x, u_cells.z, v_uv.x));
            r = j > i ? 0u : 1u;
        }
        if (r == 0u) c = mix(c, vec3(0.10, 0.10, 0.12), 0.85);
        else if (r != 1u) c = mix(c, u_reason_colors[min(r, 31u)], u_mask_alpha);  // 1 = dense: nothing to explain
    }
    frag = vec4(c, 1.0);
}
