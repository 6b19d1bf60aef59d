#version 330 core
// A screen rectangle (two triangles from gl_VertexID, no vertex buffer) covering the whole matrix;
// uv (0, 0) is cell (row 0, column 0) at the top left.
uniform vec4 u_rect;  // x0, y0 (top left), x1, y1 (bottom right) in normalised device coordinates
out vec2 v_uv;
void main() {
    vec2 corner = vec2(float(gl_VertexID & 1), float((gl_VertexID >> 1) & 1));
    v_uv = corner;
    gl_Position = vec4(mix(u_rect.xy, u_rect.zw, corner), 0.0, 1.0);
}
