// attnscope — panel figure exports (see panel_figures.h).
#include "app/gui/panel_figures.h"

#include <imgui.h>
#include <imgui_internal.h>

#include "app/gui/app.h"
#include "app/gui/panels.h"
#include "core/figure/render.h"

namespace attnscope::gui {

void post_export(App& app, std::function<void()> write, std::string what) {
    auto job = std::make_shared<ExportJob>("export", [write = std::move(write), what](JobContext&) -> ExportMessage {
        try {
            write();
            return {"saved " + what, true};
        } catch (const std::exception& e) {
            return {std::string("export failed: ") + e.what(), false};
        }
    }, true);
    app.export_jobs.push_back(job);
    app.runs.post_job(std::move(job));
}

std::string gui_figure_title(const App& app) {
    const auto snap = app.snap;
    if (!snap || !snap->heads) return "";
    const Heads& h = *snap->heads;
    const InputSpec& in = app.input.spec;
    if (in.mode == InputMode::Text)
        return "text, " + std::to_string(h.n()) + " tokens, " + (snap->input_info.model.decoder ? "decoder" : "encoder") +
               " layer " + std::to_string(in.layer);
    return h.source + ", n = " + std::to_string(h.n()) + ", H = " + std::to_string(h.heads()) + ", d = " + std::to_string(h.d());
}

std::function<figure::Canvas(figure::Theme)> chart_builder(figure::PlotFigure plot, std::string title) {
    return [plot = std::move(plot), title = std::move(title)](figure::Theme theme) {
        figure::PlotFigure f = plot;
        f.title = title, f.theme = theme, f.width = 1600;
        return figure::layout_plots(f);
    };
}

void export_panel_figure(App& app, const PanelEntry& panel, figure::Theme theme) {
    try {
        const PanelFigure figure = panel.figure ? panel.figure(app) : PanelFigure{{}, "this panel draws no figure"};
        if (!figure.build) {
            app.exports.message = std::string(panel.window) + ": no figure to export — " + figure.missing;
            app.exports.message_is_error = true;
            return;
        }
        const std::string stem = std::string(panel.alias) + "-figure-" + (theme == figure::Theme::Dark ? "dark" : "light");
        const std::string png = export_path(app, stem + ".png"), svg = export_path(app, stem + ".svg");
        post_export(app, [build = figure.build, theme, png, svg] {
            const figure::Canvas canvas = build(theme);
            figure::write_canvas(png, canvas, 1.5f);
            figure::write_canvas(svg, canvas, 1.0f);
        }, png + " and " + svg);
    } catch (const Error& e) {
        app.exports.message = e.what(), app.exports.message_is_error = true;
    }
}

const PanelEntry& focused_panel(const App& app) {
    for (const PanelEntry& p : panels())
        if (app.exports.focused == p.alias) return p;
    return panel("matrices");
}

}  // namespace attnscope::gui
