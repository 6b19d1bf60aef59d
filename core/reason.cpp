#include "reason.h"

namespace attnscope {

const char* reason_name(Reason r) {
    switch (r) {
        case Reason::None: return "none";
        case Reason::Dense: return "dense";
        case Reason::Local: return "local";
        case Reason::Stride: return "stride";
        case Reason::Summary: return "summary";
        case Reason::Window: return "window";
        case Reason::Dilated: return "dilated";
        case Reason::Global: return "global";
        case Reason::Random: return "random";
        case Reason::Segment: return "segment";
        case Reason::Memory: return "memory";
        case Reason::Bucket: return "bucket";
        case Reason::Sink: return "sink";
        case Reason::TopK: return "top-k";
        case Reason::Selected: return "selected";
        case Reason::Vertical: return "vertical";
        case Reason::Slash: return "slash";
        case Reason::Count: break;
    }
    return "?";
}

std::array<float, 3> reason_rgb(Reason r) {
    switch (r) {
        case Reason::None: return {0.10f, 0.10f, 0.12f};
        case Reason::Dense: return {0.55f, 0.75f, 0.85f};
        case Reason::Local: return {0.00f, 0.62f, 0.45f};
        case Reason::Stride: return {0.90f, 0.62f, 0.00f};
        case Reason::Summary: return {0.80f, 0.47f, 0.65f};
        case Reason::Window: return {0.34f, 0.71f, 0.91f};
        case Reason::Dilated: return {0.00f, 0.45f, 0.70f};
        case Reason::Global: return {0.84f, 0.15f, 0.16f};
        case Reason::Random: return {0.94f, 0.89f, 0.26f};
        case Reason::Segment: return {0.40f, 0.65f, 0.12f};
        case Reason::Memory: return {0.58f, 0.40f, 0.74f};
        case Reason::Bucket: return {0.84f, 0.37f, 0.00f};
        case Reason::Sink: return {0.95f, 0.35f, 0.75f};
        case Reason::TopK: return {0.20f, 0.80f, 0.80f};
        case Reason::Selected: return {0.55f, 0.85f, 0.35f};
        case Reason::Vertical: return {0.95f, 0.55f, 0.20f};
        case Reason::Slash: return {0.45f, 0.55f, 0.95f};
        case Reason::Count: break;
    }
    return {1, 1, 1};
}

}  // namespace attnscope
