// SPDX-License-Identifier: MIT
// `stallscope render`: the composed postmortem image, headless (offscreen platform), deterministic.
#include "cli/cli_options.h"
#include "cli/commands.h"

#include "core/time_format.h"
#include "export/trace_export.h"
#include "open/load_job.h"
#include "render/postmortem_render.h"
#include "render/postmortem_report.h"
#include "render/session_look.h"
#include "view/review_session.h"

#include <QString>

#include <optional>
#include <ostream>

namespace stallscope::cli {

namespace {

const std::vector<OptionSpec> kSpecs = {
    { "incident", true, "render incident N (numbered as in `stallscope analyze`)" },
    { "window", true, "render a time window START..END, each a time since job start (e.g. 4m..6m) or epoch ns" },
    { "out", true, "output file: .png, .svg or .pdf (required)" },
    { "size", true, "image size WxH in pixels (default 1600x1000)" },
    { "views", true, "comma-separated subset of heatmap,counters,topology (default all)" },
    { "theme", true, "light (default) or dark" },
    { "rows", true,
        "all | recorded: every rank's row, or only the ranks with collective records (default: recorded\n"
        "when under a quarter of the ranks have records, so their stalls are not folded away)" },
    { "session", true,
        "a .stallscope review session: its notes, row order and colouring are drawn as the window\n"
        "showed them, and its window when neither --incident nor --window is given" },
    { "fabric", false,
        "render the fabric review: link heatmap, the top flapping links' counters, topology\n"
        "(the default for data without a job; --window optional)" },
};

std::string usage()
{
    std::string s
        = "Usage: stallscope render BUNDLE (--incident N | --window START..END | --fabric) --out FILE.(png|svg|pdf)\n"
          "                         [--size WxH] [--views heatmap,counters,topology] [--theme light|dark]\n"
          "Renders the window's composed layout without a display: title, heatmap with UTC time axis and\n"
          "legend, the culprit's counters, the topology with the culprit marked, and a caption with the\n"
          "evidence and the cost. The same inputs give the same PNG bytes.\n\nOptions:\n";
    s += formatOptions(kSpecs);
    return s + "\nExit codes: 0 ok, 1 bad input or write failure, 2 usage error.\n";
}

} // namespace

int runRender(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    const auto a = parseArgs(args, kSpecs);
    if (a.help) {
        out << usage();
        return kExitOk;
    }
    std::string bad = a.error;
    if (bad.empty() && a.positional.size() != 1) {
        bad = "expected exactly one BUNDLE";
    }
    if (bad.empty() && a.last("out").empty()) {
        bad = "--out FILE is required";
    }
    if (bad.empty()) {
        bad = outsideInput(a.positional[0], a.last("out"));
    }
    if (bad.empty() && !a.last("incident").empty() && !a.last("window").empty()) {
        bad = "give one of --incident N and --window START..END";
    }
    if (bad.empty() && a.has("fabric") && !a.last("incident").empty()) {
        bad = "--fabric renders the fabric review: give --window (or nothing), not --incident";
    }
    RenderRequest req;
    if (bad.empty() && !a.last("size").empty()) {
        int w = 0, h = 0;
        if (std::sscanf(a.last("size").c_str(), "%dx%d", &w, &h) != 2 || w < 320 || h < 240 || w > 8000 || h > 8000) {
            bad = "--size: expected WxH between 320x240 and 8000x8000";
        }
        req.size = QSize(w, h);
    }
    if (bad.empty() && !a.last("theme").empty()) {
        if (a.last("theme") != "light" && a.last("theme") != "dark") {
            bad = "--theme: expected light or dark";
        }
        req.dark = a.last("theme") == "dark";
    }
    if (bad.empty() && !a.last("rows").empty()) {
        if (a.last("rows") != "all" && a.last("rows") != "recorded") {
            bad = "--rows: expected all or recorded";
        }
        req.recordedOnly = a.last("rows") == "recorded";
    }
    if (bad.empty() && !a.last("views").empty()) {
        const std::string v = "," + a.last("views") + ",";
        req.heatmap = v.find(",heatmap,") != std::string::npos;
        req.counters = v.find(",counters,") != std::string::npos;
        req.topology = v.find(",topology,") != std::string::npos;
        if (!req.heatmap && !req.counters && !req.topology) {
            bad = "--views: expected some of heatmap,counters,topology";
        }
    }
    if (!bad.empty()) {
        err << "stallscope render: " << bad << "\n" << usage();
        return kExitUsage;
    }
    SharedProgress progress;
    // A fabric image without --fabric (data without a job) builds its review itself, after the analysis.
    const auto opened
        = openPath(a.positional[0], progress, {}, a.has("fabric") ? OpenFor::Images : OpenFor::WindowImages);
    if (!opened.error.empty()) {
        err << "stallscope render: " << opened.error << '\n';
        return kExitBadInput;
    }
    req.fabric = a.has("fabric") || opened.snapshot->job.worldSize == 0;
    std::optional<ReviewSession> session;
    if (!a.last("session").empty()) {
        auto loaded = loadSession(a.last("session"));
        if (!loaded) {
            err << "stallscope render: " << loaded.error().format() << '\n';
            return kExitBadInput;
        }
        session = std::move(loaded.value());
        req.annotations = session->annotations;
        const auto look = sessionLook(*session);
        req.rowOrder = look.rowOrder;
        req.metric = look.metric;
        if (a.last("rows").empty()) {
            req.recordedOnly = look.recordedOnly;
        }
        req.linkRowOrder = look.linkOrder;
    }
    const bool sessionWindow = session && !session->window.isEmpty() && a.last("incident").empty()
        && a.last("window").empty();
    if (sessionWindow) {
        req.window = session->window;
    } else if (!req.fabric && a.last("incident").empty() && a.last("window").empty()) {
        err << "stallscope render: give --incident N or --window START..END (or --fabric)\n" << usage();
        return kExitUsage;
    }
    if (sessionWindow || (req.fabric && a.last("window").empty())) {
        // the session's window, or the whole span
    } else if (!a.last("incident").empty()) {
        req.incident = std::atoi(a.last("incident").c_str());
        const int n = static_cast<int>(opened.analysis->incidents.size());
        if (req.incident < 1 || req.incident > n) {
            err << "stallscope render: --incident " << a.last("incident") << ": the bundle has " << n
                << " incident(s)\n";
            return kExitBadInput;
        }
    } else {
        const auto window = parseTimeWindow(a.last("window"), opened.snapshot->job.clockOriginNs);
        if (!window) {
            err << "stallscope render: --window " << a.last("window") << ": " << window.error() << '\n';
            return kExitUsage;
        }
        req.window = window.value();
    }
    const RenderInputs in { opened.snapshot, opened.analysis, opened.heatmap, opened.linkHeatmap, opened.fabricReview };
    if (auto e = renderToFile(a.last("out"), in, req); !e.empty()) {
        err << "stallscope render: " << e << '\n';
        return kExitBadInput;
    }
    out << "Wrote " << a.last("out") << '\n';
    return kExitOk;
}

int runReport(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    const std::vector<OptionSpec> specs = { { "out", true, "output folder (required)" },
        { "theme", true, "light (default) or dark images" },
        { "session", true, "a .stallscope review session whose notes to draw" } };
    const auto a = parseArgs(args, specs);
    const std::string use
        = "Usage: stallscope report BUNDLE --out DIR [--theme light|dark] [--session FILE.stallscope]\n"
          "Writes report.html and report.md with one rendered image per incident into DIR: summary\n"
          "table, evidence, timeout policy, what-if table and why nothing caught it. The report\n"
          "references only files in DIR and needs no network.\n\nOptions:\n"
        + formatOptions(specs) + "\nExit codes: 0 ok, 1 bad input or write failure, 2 usage error.\n";
    if (a.help) {
        out << use;
        return kExitOk;
    }
    const auto outDir = a.options.count("out") ? a.options.at("out").back() : std::string();
    const auto theme = a.options.count("theme") ? a.options.at("theme").back() : std::string("light");
    if (!a.error.empty() || a.positional.size() != 1 || outDir.empty() || (theme != "light" && theme != "dark")) {
        err << "stallscope report: "
            << (!a.error.empty()                  ? a.error
                       : a.positional.size() != 1 ? "expected exactly one BUNDLE"
                       : outDir.empty()           ? "--out DIR is required"
                                                  : "--theme: expected light or dark")
            << "\n"
            << use;
        return kExitUsage;
    }
    if (const auto inside = outsideInput(a.positional[0], outDir); !inside.empty()) {
        err << "stallscope report: " << inside << '\n';
        return kExitUsage;
    }
    SharedProgress progress;
    const auto opened = openPath(a.positional[0], progress, {}, OpenFor::Images);
    if (!opened.error.empty()) {
        err << "stallscope report: " << opened.error << '\n';
        return kExitBadInput;
    }
    ReportOptions options;
    options.dark = theme == "dark";
    if (a.options.count("session")) {
        auto session = loadSession(a.options.at("session").back());
        if (!session) {
            err << "stallscope report: " << session.error().format() << '\n';
            return kExitBadInput;
        }
        options.annotations = session->annotations;
    }
    if (auto e = writeReport(outDir,
            { opened.snapshot, opened.analysis, opened.heatmap, opened.linkHeatmap, opened.fabricReview }, options);
        !e.empty()) {
        err << "stallscope report: " << e << '\n';
        return kExitBadInput;
    }
    out << "Wrote " << outDir << "/report.html and report.md (" << opened.analysis->incidents.size()
        << " incident(s))\n";
    return kExitOk;
}

} // namespace stallscope::cli
