// SPDX-License-Identifier: MIT
// Whole tasks in the real window (offscreen), as an on-call engineer does them: open a job, annotate, open
// another, save a session, reopen it, cancel an open; and the views read on one time axis. Each case drives
// MainWindow through its menus' code paths and answers its dialogs as a person would.
// Over 600 lines as one file: the tasks share the jobs simulated once per run (jobs()) and the dialog answerers.
#include "analysis/flaps.h"
#include "bundle/writer.h"
#include "panels/counter_plot_widget.h"
#include "panels/flaps_panel.h"
#include "heatmap/heatmap_palette.h"
#include "heatmap/heatmap_widget.h"
#include "panels/hosts_panel.h"
#include "import/open_job.h"
#include "panels/incidents_panel.h"
#include "isolated_settings.h"
#include "heatmap/link_heatmap_widget.h"
#include "panels/link_list_panel.h"
#include "open/load_job.h"
#include "window/main_window.h"
#include "window/open_dialog.h"
#include "render/postmortem_render.h"
#include "test_support.h"
#include "theme.h"
#include "topology/topology_widget.h"
#include "view/review_session.h"
#include "view/view_state.h"

#include <catch2/catch.hpp>

#include <QApplication>
#include <QClipboard>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLineEdit>
#include <QMessageBox>
#include <QPainter>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTest>
#include <QThreadPool>
#include <QTimer>

#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>

using namespace stallscope;

namespace {

// Two small jobs of different shapes, written as bundles once per process.
struct Jobs
{
    test::TempDir dir;
    std::string a, b;
    Jobs()
    {
        auto ca = test::tinyConfig();
        auto cb = test::tinyConfig();
        cb.seed = 7;
        cb.hosts = 6; // 48 ranks: the preset's flap names rank 37
        a = dir.str("job-a");
        b = dir.str("job-b");
        REQUIRE(writeBundle(*test::simulateOrFail(ca).snapshot, a).empty());
        REQUIRE(writeBundle(*test::simulateOrFail(cb).snapshot, b).empty());
    }
};

const Jobs& jobs()
{
    static Jobs j;
    return j;
}

// The window at a person's size, shown, with `path` open.
struct Opened
{
    test::IsolatedSettings settings;
    MainWindow w;
    explicit Opened(const std::string& path, QSize size = { 1200, 800 });
};

bool open(MainWindow& w, const std::string& path)
{
    QSignalSpy loaded(&w, &MainWindow::loadFinished);
    w.openJob(QString::fromStdString(path));
    if (loaded.isEmpty() && !loaded.wait(120000)) {
        return false;
    }
    return loaded.first().first().toBool();
}

// Runs `act` on the next modal dialog of type T once it is up (inside its exec loop), as a person answering it.
template <typename T> void whenDialog(std::function<void(T*)> act, int triesLeft = 500)
{
    QTimer::singleShot(10, [act, triesLeft] {
        if (auto* d = qobject_cast<T*>(QApplication::activeModalWidget())) {
            act(d);
        } else if (triesLeft > 0) {
            whenDialog<T>(act, triesLeft - 1);
        }
    });
}

// Answers the next message boxes in turn, each with its button; the first box's text goes to `text`.
void answerBoxes(std::vector<QMessageBox::StandardButton> buttons, QString* text = nullptr)
{
    if (buttons.empty()) {
        return;
    }
    whenDialog<QMessageBox>([buttons, text](QMessageBox* box) {
        if (text) {
            *text = box->text();
        }
        auto rest = std::vector<QMessageBox::StandardButton>(buttons.begin() + 1, buttons.end());
        answerBoxes(rest, nullptr); // polls again once this box is gone
        box->button(buttons.front())->click();
    });
}

void answerUnsavedNotes(QMessageBox::StandardButton button, QString* text = nullptr)
{
    answerBoxes({ button }, text);
}

void answerSaveAs(const QString& path)
{
    whenDialog<QFileDialog>([path](QFileDialog* d) {
        d->selectFile(path);
        // selectFile leaves the name box alone while it has the keyboard focus, which the dialog sometimes has
        // by now: typed, as a person does, the name is the one accepted either way.
        if (auto* name = d->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"))) {
            name->setText(QFileInfo(path).fileName());
        }
        QMetaObject::invokeMethod(d, "accept"); // the Save button's slot
    });
}

Opened::Opened(const std::string& path, QSize size)
{
    w.resize(size);
    w.show();
    REQUIRE(open(w, path));
}

Annotation note(TimeNs t, const char* text)
{
    Annotation a;
    a.startNs = a.endNs = t;
    a.text = text;
    return a;
}

// Where instant t falls, in the window's pixels, in each of the three time views.
struct RulerXs
{
    double ranks, links, counters;
};

RulerXs rulerXs(MainWindow& w, TimeNs t)
{
    const auto* hm = w.heatmap();
    const auto* lh = w.linkHeatmap();
    const auto* counters = w.counters();
    const auto win = w.viewState()->window();
    const auto rankPlot = hm->plotRect();
    const auto linkPlot = lh->plotRect();
    const double xr = rankPlot.left() + TimeAxisMapping { win, rankPlot.width() }.x(t);
    const double xl = linkPlot.left() + TimeAxisMapping { win, linkPlot.width() }.x(t);
    const double xc = counters->xOf(t);
    return { hm->mapTo(&w, QPointF(xr, 0)).x(), lh->mapTo(&w, QPointF(xl, 0)).x(),
        counters->surface()->mapTo(&w, QPointF(xc, 0)).x() };
}

} // namespace

TEST_CASE("a note belongs to its job: the next job opens without it, and asks before it is lost", "[window]")
{
    Opened opened(jobs().a);
    auto& w = opened.w;
    auto* state = w.viewState();
    const auto spanA = state->span();
    state->setCursor(spanA.start + spanA.delta() / 3);
    state->addAnnotation(note(state->cursor(), "flap seen on leaf-r0"));
    state->selectRanks({ 1, 2, 3 });
    w.heatmap()->setRowOrder(RowOrder::FirstStuck);
    w.fabricFind()->setText(QStringLiteral("leaf"));
    w.linkList()->setFilterText(QStringLiteral("gpu-a000"));
    CHECK(w.isWindowModified()); // the title shows the unsaved note

    // Cancel: nothing happens, job A stays with its note.
    QString asked;
    answerUnsavedNotes(QMessageBox::Cancel, &asked);
    w.openJob(QString::fromStdString(jobs().b));
    CHECK(asked.contains(QStringLiteral("1 note")));
    CHECK(w.opened()->path == jobs().a);
    CHECK(state->annotations().size() == 1);

    // Discard: job B opens with nothing of A's.
    answerUnsavedNotes(QMessageBox::Discard);
    REQUIRE(open(w, jobs().b));
    CHECK(w.opened()->path == jobs().b);
    CHECK(state->annotations().empty());
    CHECK(state->selectedRanks().empty());
    CHECK(state->cursor() == kNoTime);
    CHECK_FALSE(state->canGoBack());
    CHECK(w.heatmap()->rowOrder() == RowOrder::Rank);
    CHECK(w.fabricFind()->text().isEmpty());
    CHECK(w.linkList()->filterText().isEmpty());
    CHECK(w.linkList()->visibleCount() > 0); // A's filter would have left B's list empty
    CHECK(state->span() == w.opened()->snapshot->job.span);
    CHECK_FALSE(w.isWindowModified());
}

TEST_CASE("a review session saved from the window reopens with its notes, selection, order and find text", "[window]")
{
    test::IsolatedSettings settings;
    test::TempDir out;
    const auto sessionFile = QString::fromStdString(out.str("incident-review.stallscope"));
    TimeRange window;
    std::vector<Annotation> notes;
    {
        MainWindow w;
        w.resize(1200, 800);
        w.show();
        REQUIRE(open(w, jobs().a));
        auto* state = w.viewState();
        const auto span = state->span();
        state->zoomIn({ span.start + span.delta() / 4, span.start + span.delta() / 2 });
        state->setCursor(span.start + span.delta() / 3);
        state->addAnnotation(note(state->cursor(), "stall starts here"));
        state->selectRanks({ 5, 6 });
        w.heatmap()->setRowOrder(RowOrder::Host);
        w.fabricFind()->setText(QStringLiteral("spine"));
        window = state->window();
        notes = state->annotations();

        answerSaveAs(sessionFile); // Ctrl+S on a job without a session asks where
        REQUIRE(w.saveSession(false));
        CHECK(w.sessionPath() == sessionFile);
        CHECK_FALSE(w.isWindowModified());
        CHECK(w.windowTitle().contains(QStringLiteral("incident-review.stallscope")));
        // A second note, then Ctrl+S again: saved to the same file without a dialog.
        state->addAnnotation(note(span.start + span.delta() / 2, "recovered"));
        notes = state->annotations();
        REQUIRE(w.saveSession(false));
        // Another job's first stage on screen while it loads: its name, not beside this job's session.
        QStringList stageTitles;
        const auto seen = QObject::connect(
            &w, &MainWindow::stageShown, &w, [&] { stageTitles << w.windowTitle(); });
        REQUIRE(open(w, jobs().b));
        QObject::disconnect(seen);
        REQUIRE_FALSE(stageTitles.isEmpty());
        for (const auto& title : stageTitles) {
            CHECK_FALSE(title.contains(QStringLiteral("incident-review.stallscope")));
        }
        REQUIRE(open(w, jobs().a));
        w.closeJob(); // saved: no question
        CHECK_FALSE(w.opened());
        CHECK(state->annotations().empty());
    }
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    REQUIRE(open(w, sessionFile.toStdString()));
    auto* state = w.viewState();
    CHECK(w.opened()->path == jobs().a);
    CHECK(state->annotations() == notes);
    CHECK(state->window() == window);
    CHECK(state->canGoBack()); // the zoom history came back too
    CHECK(state->selectedRanks() == std::vector<std::uint32_t> { 5, 6 });
    CHECK(w.heatmap()->rowOrder() == RowOrder::Host);
    CHECK(w.fabricFind()->text() == QStringLiteral("spine"));
    CHECK(w.sessionPath() == sessionFile);
    CHECK_FALSE(w.isWindowModified());
    // The session is offered again on the welcome page and in Open Recent.
    CHECK(QSettings().value(QStringLiteral("recent")).toStringList().contains(sessionFile));
}

TEST_CASE("a failed or cancelled open leaves the open job and its notes as they were", "[window]")
{
    test::IsolatedSettings settings;
    test::TempDir empty;
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    REQUIRE(open(w, jobs().a));
    auto* state = w.viewState();
    state->setCursor(state->span().start + 5 * kNsPerSec);
    state->addAnnotation(note(state->cursor(), "keep me"));
    const auto before = state->save();

    SECTION("refused before anything is shown")
    {
        answerBoxes({ QMessageBox::Discard, QMessageBox::Ok }); // leave; then the refusal's box
        CHECK_FALSE(open(w, empty.str()));
    }
    SECTION("cancelled after its first stage was shown")
    {
        // A job big enough that its analysis is still running when the first stage is on screen.
        auto big = *presetConfig("small");
        big.hosts = 64;
        big.durationNs = 300 * kNsPerSec;
        test::TempDir bigDir;
        REQUIRE(writeBundle(*test::simulateOrFail(big).snapshot, bigDir.str("big")).empty());
        QObject::connect(&w, &MainWindow::stageShown, &w, [&w] { w.cancelLoading(); });
        answerUnsavedNotes(QMessageBox::Discard);
        QSignalSpy shown(&w, &MainWindow::stageShown);
        CHECK_FALSE(open(w, bigDir.str("big")));
        REQUIRE(shown.count() >= 1); // the new job was on screen before the cancel
        CHECK(w.statusBar()->currentMessage() == QObject::tr("Opening cancelled"));
    }
    SECTION("cancelled while its files are read")
    {
        auto big = *presetConfig("small");
        big.hosts = 64;
        big.durationNs = 300 * kNsPerSec;
        test::TempDir bigDir;
        REQUIRE(writeBundle(*test::simulateOrFail(big).snapshot, bigDir.str("big")).empty());
        answerUnsavedNotes(QMessageBox::Discard);
        QSignalSpy finished(&w, &MainWindow::loadFinished);
        w.openJob(QString::fromStdString(bigDir.str("big")));
        w.cancelLoading(); // before the reader is through the first rank's columns
        REQUIRE(finished.wait(120000));
        CHECK_FALSE(finished.front().front().toBool());
        // Said as a cancel, not as a refusal naming the file the reader stopped in (and no box).
        CHECK(w.statusBar()->currentMessage() == QObject::tr("Opening cancelled"));
    }
    CHECK(w.opened());
    CHECK(w.opened()->path == jobs().a);
    CHECK(w.showingViews());
    CHECK(state->annotations() == before.annotations);
    CHECK(state->cursor() == before.cursor);
    CHECK(state->span() == before.span);
    CHECK(w.heatmap()->model());
    CHECK(&w.heatmap()->model()->snapshot() == w.opened()->snapshot.get());
    CHECK(w.windowTitle().contains(QString::fromStdString(w.opened()->snapshot->job.name)));
}

TEST_CASE("while a job opens, Qt's own thread pool stays free for painting", "[window]")
{
    // Qt's raster engine paints large areas in segments on QThreadPool::globalInstance() and the GUI thread waits for
    // them: an open or a raster of ours holding that pool's threads froze every paint, the progress dialog too.
    test::IsolatedSettings settings;
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    auto big = *presetConfig("small");
    big.hosts = 64;
    big.durationNs = 300 * kNsPerSec;
    test::TempDir bigDir;
    REQUIRE(writeBundle(*test::simulateOrFail(big).snapshot, bigDir.str("big")).empty());
    int busyAtStage = -1;
    bool stillLoading = false;
    QSignalSpy finished(&w, &MainWindow::loadFinished);
    QObject::connect(&w, &MainWindow::stageShown, &w, [&] {
        if (busyAtStage < 0) { // the first stage: the open's analysis is still running, the heatmap's raster too
            stillLoading = finished.isEmpty();
            busyAtStage = QThreadPool::globalInstance()->activeThreadCount();
        }
    });
    REQUIRE(open(w, bigDir.str("big")));
    REQUIRE(stillLoading);
    CHECK(busyAtStage == 0);
}

TEST_CASE("the three time views put one instant at one x, at every zoom and width", "[window]")
{
    test::IsolatedSettings settings;
    MainWindow w;
    w.show();
    REQUIRE(open(w, jobs().a));
    w.settleViews();
    auto* state = w.viewState();
    REQUIRE(w.opened()->analysis->incidents.size() >= 1);
    state->selectIncident(1); // plots its culprit link's counters
    REQUIRE(w.counters()->plottedLinks() == 1);
    const auto span = state->span();
    for (const int width : { 1000, 1400, 1900 }) {
        w.resize(width, 900);
        QApplication::processEvents();
        for (const TimeRange zoom : { span, TimeRange { span.start + span.delta() / 3, span.start + span.delta() / 2 },
                 TimeRange { span.start + 60 * kNsPerSec, span.start + 62 * kNsPerSec } }) {
            state->setWindow(zoom);
            QApplication::processEvents();
            for (const double f : { 0.1, 0.5, 0.9 }) {
                const TimeNs t = zoom.start + static_cast<TimeNs>(double(zoom.delta()) * f);
                const auto xs = rulerXs(w, t);
                INFO("width " << width << ", window " << zoom.delta() << " ns, at " << f);
                CHECK(std::abs(xs.ranks - xs.links) <= 1.0);
                CHECK(std::abs(xs.ranks - xs.counters) <= 1.0);
            }
        }
    }
}

TEST_CASE("hover draws a crosshair and leaves the pinned cursor where a click put it", "[window]")
{
    Opened opened(jobs().a);
    auto& w = opened.w;
    w.settleViews();
    auto* hm = w.heatmap();
    auto* state = w.viewState();
    const auto plot = hm->plotRect();
    const QPoint clickAt(plot.left() + plot.width() / 4, plot.top() + plot.height() / 2);
    QTest::mouseClick(hm, Qt::LeftButton, {}, clickAt);
    const TimeNs pinned = state->cursor();
    REQUIRE(pinned != kNoTime);
    QTest::mouseMove(hm, QPoint(plot.left() + plot.width() * 3 / 4, plot.top() + 10));
    CHECK(state->cursor() == pinned); // hover never moves it
    CHECK(state->hover() != kNoTime);
    CHECK(state->hover() > pinned);
    // A note goes where the cursor is pinned, not where the mouse last crossed.
    const auto spanBefore = state->annotations().size();
    whenDialog<QInputDialog>([](QInputDialog* d) {
        d->setTextValue(QStringLiteral("pinned here"));
        d->accept();
    });
    for (auto* a : w.findChildren<QAction*>()) {
        if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_M)) {
            a->trigger();
        }
    }
    REQUIRE(state->annotations().size() == spanBefore + 1);
    CHECK(state->annotations().back().startNs == pinned);
}

TEST_CASE("a plotted link's strip group is removed with its ×, and each strip keeps its height", "[window]")
{
    Opened opened(jobs().a);
    auto& w = opened.w;
    auto* state = w.viewState();
    const auto& links = w.opened()->snapshot->topology.links();
    REQUIRE(links.size() >= 2);
    state->clearLinks();
    state->selectLink(LinkId(0));
    state->selectLink(LinkId(1));
    QApplication::processEvents();
    REQUIRE(w.counters()->plottedLinks() == 2);
    QApplication::processEvents();
    INFO("surface " << w.counters()->surface()->height() << " px high in a view of " << w.counters()->height());
    const auto heights = w.counters()->trackHeights();
    REQUIRE(heights.size() == 6);
    for (const int h : heights) {
        CHECK(h >= 60); // two links: the strips scroll instead of halving
    }
    const QPoint at = w.counters()->removeButtonCentre(LinkId(0));
    REQUIRE(at.x() >= 0);
    QTest::mouseClick(w.counters()->surface(), Qt::LeftButton, {}, at);
    QApplication::processEvents(); // the removal is queued
    CHECK(state->selectedLinks() == std::vector<LinkId> { LinkId(1) });
    CHECK(w.counters()->plottedLinks() == 1);
}

TEST_CASE("first-stuck order with a scattered selection of thousands of ranks still shows the heatmap", "[window]")
{
    test::IsolatedSettings settings;
    // 16,384 ranks in three tiers, selected as a pod's block is by a click in the Fabric dock.
    auto config = *presetConfig("three-tier");
    config.durationNs = 30 * kNsPerSec;
    for (auto& f : config.faults) {
        f.atNs = 10 * kNsPerSec;
    }
    test::TempDir dir;
    REQUIRE(writeBundle(*test::simulateOrFail(config).snapshot, dir.str("big")).empty());
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    REQUIRE(open(w, dir.str("big")));
    w.settleViews();
    std::vector<std::uint32_t> pod;
    for (std::uint32_t r = 0; r < 2048; ++r) {
        pod.push_back(r);
    }
    w.viewState()->selectRanks(pod);
    w.heatmap()->setRowOrder(RowOrder::FirstStuck);
    w.settleViews();
    const QImage img = w.heatmap()->grab().toImage();
    const auto plot = w.heatmap()->plotRect();
    // The share of the plot drawn in the selection's outline colour: a few rows' edges, not the whole view.
    const QColor outline = HeatmapPalette::fromPalette(w.heatmap()->palette()).cursor;
    std::size_t same = 0, all = 0;
    for (int y = plot.top() + 2; y < plot.bottom() - 2; y += 3) {
        for (int x = plot.left() + 2; x < plot.right() - 2; x += 3) {
            ++all;
            same += img.pixelColor(x, y) == outline;
        }
    }
    INFO(same << " of " << all << " sampled pixels are the outline's colour");
    CHECK(same * 10 < all);
}

TEST_CASE("File › Open takes folders and review sessions", "[window]")
{
    test::TempDir tmp;
    std::ofstream(tmp.path() / "a.stallscope") << "{}";
    std::ofstream(tmp.path() / "notes.txt") << "x";
    CHECK(openablePath(QString::fromStdString(tmp.str())));
    CHECK(openablePath(QString::fromStdString(tmp.str("a.stallscope"))));
    CHECK_FALSE(openablePath(QString::fromStdString(tmp.str("notes.txt"))));
    CHECK_FALSE(openablePath(QString::fromStdString(tmp.str("gone"))));
}

TEST_CASE("a crash reads as a crash: its own kind, until the job died, the death on the time axis", "[window]")
{
    auto config = *presetConfig("small");
    config.faults[0].atNs = 120 * kNsPerSec;
    config.faults[0].durationNs = 45 * kNsPerSec; // past the 30 s retry budget: the job dies
    test::TempDir dir;
    REQUIRE(writeBundle(*test::simulateOrFail(config).snapshot, dir.str("crash")).empty());
    Opened opened(dir.str("crash"));
    auto& w = opened.w;
    REQUIRE(w.opened()->analysis->incidents.size() == 1);
    const auto& inc = w.opened()->analysis->incidents[0];
    REQUIRE(inc.jobCrashed);
    REQUIRE(inc.jobDiedNs > w.opened()->snapshot->job.span.end); // the collective timeout outlasts the records
    auto* table = w.incidentsPanel();
    CHECK(table->cellText(0, 4) == QStringLiteral("crash: link down past the retry budget"));
    CHECK(table->cellText(0, 2).endsWith(QStringLiteral("until the job died")));
    CHECK(w.viewState()->span().end > inc.jobDiedNs); // the death is on the axis, not past its edge
    CHECK_FALSE(inc.firstFailedRanks.empty());
}

TEST_CASE("flaps can be stepped through: a list of each flap, Enter zooms to one, next and previous", "[window]")
{
    auto config = *presetConfig("small");
    auto second = config.faults[0];
    config.faults[0].atNs = 120 * kNsPerSec;
    second.atNs = 420 * kNsPerSec;
    config.faults.push_back(second);
    test::TempDir dir;
    REQUIRE(writeBundle(*test::simulateOrFail(config).snapshot, dir.str("two-flaps")).empty());
    Opened opened(dir.str("two-flaps"));
    auto& w = opened.w;
    auto* flaps = w.flapsPanel();
    REQUIRE(flaps->rowCount() >= 1);
    flaps->selectRow(0);
    REQUIRE(flaps->flapListCount() == 2);
    // The recurrence of two sightings is not called a period, and the incidents say the same as the Flaps panel.
    const auto recurrence = flaps->cellText(0, 3);
    CHECK(recurrence.startsWith(QStringLiteral("too few to call a period: 2 sightings")));
    const auto& incidents = w.opened()->analysis->incidents;
    REQUIRE(incidents.size() == 2);
    CHECK(recurrence.startsWith(QString::fromStdString(incidents[0].policy.recurrence)));
    CHECK(recurrence.endsWith(QStringLiteral("; in this job's stalls 1 and 2"))); // the job's own stalls it is in
    CHECK(incidents[0].policy.flapsPerDay == Approx(w.opened()->fabricReview->flapping[0].flapsPerDay));
    CHECK(w.incidentsPanel()->cellText(0, 4) == QStringLiteral("link flap"));
    // The Links dock counts each link's flaps and leads with the link in trouble.
    auto* links = w.linkList();
    CHECK(links->cellText(0, LinkListPanel::kFlaps) == QStringLiteral("2"));
    CHECK(links->cellText(0, LinkListPanel::kState) == QStringLiteral("down"));
    CHECK(links->cellText(1, LinkListPanel::kFlaps) == QStringLiteral("0"));
    CHECK(links->cellText(1, LinkListPanel::kState) == QStringLiteral("ok"));

    auto* state = w.viewState();
    flaps->zoomToFlap(0);
    const TimeNs first = state->cursor();
    CHECK(state->window().contains(first));
    CHECK(state->window().delta() < 5 * 60 * kNsPerSec); // zoomed in on it, not the whole job
    REQUIRE(flaps->stepFlap(+1));
    const TimeNs next = state->cursor();
    CHECK(next - first > 200 * kNsPerSec); // the second flap, 5 minutes later
    CHECK(state->window().contains(next));
    CHECK_FALSE(flaps->stepFlap(+1)); // no third
    REQUIRE(flaps->stepFlap(-1));
    CHECK(state->cursor() == first);
}

TEST_CASE("go to a rank or a host: its ranks are selected, and a vague name asks for more", "[window]")
{
    Opened opened(jobs().a);
    auto& w = opened.w;
    const auto& snap = *w.opened()->snapshot;
    CHECK(w.goTo(QStringLiteral("37")));
    CHECK(w.viewState()->selectedRanks() == std::vector<std::uint32_t> { 37 });
    const std::string host(snap.str(snap.ranks[9].host));
    CHECK(w.goTo(QString::fromStdString(host)));
    const auto& sel = w.viewState()->selectedRanks();
    REQUIRE_FALSE(sel.empty());
    for (const auto r : sel) {
        CHECK(snap.str(snap.ranks[r].host) == host);
    }
    CHECK(std::find(sel.begin(), sel.end(), 9u) != sel.end());
    CHECK_FALSE(w.goTo(QStringLiteral("gpu"))); // every host holds it
    CHECK_FALSE(w.goTo(QStringLiteral("99999")));
    CHECK(w.statusBar()->currentMessage().contains(QStringLiteral("no rank 99999")));
    CHECK(std::find(sel.begin(), sel.end(), 9u) != sel.end()); // a miss leaves the selection alone
}

TEST_CASE("a note names a rank only when one rank is selected, not the first of a host's ranks", "[window]")
{
    // #45: a note added with a host selected in the Fabric dock (its ranks 0..7) was reported as "rank 0".
    Opened opened(jobs().a);
    auto& w = opened.w;
    auto* state = w.viewState();
    const auto addNote = [&](const char* text) {
        whenDialog<QInputDialog>([text](QInputDialog* d) {
            d->setTextValue(QString::fromLatin1(text));
            d->accept();
        });
        for (auto* a : w.findChildren<QAction*>()) {
            if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_M)) {
                a->trigger();
            }
        }
    };
    state->setCursor(state->span().start + state->span().delta() / 2);
    state->selectRanks({ 0, 1, 2, 3, 4, 5, 6, 7 });
    addNote("host looks slow");
    REQUIRE(state->annotations().size() == 1);
    CHECK_FALSE(state->annotations().back().rank.has_value());
    state->selectRank(5);
    addNote("rank 5 late");
    REQUIRE(state->annotations().size() == 2);
    CHECK(state->annotations().back().rank == std::optional<std::uint32_t>(5));
    state->setAnnotations({}); // nothing unsaved to ask about
}

TEST_CASE("Save report writes into a new folder typed in its dialog", "[window]")
{
    // #45: the folder chooser refused a folder that did not exist yet.
    Opened opened(jobs().a);
    auto& w = opened.w;
    test::TempDir out;
    const auto folder = QString::fromStdString(out.str("new-report"));
    REQUIRE_FALSE(QFileInfo::exists(folder));
    answerSaveAs(folder);
    for (auto* a : w.findChildren<QAction*>()) {
        if (a->text() == QStringLiteral("Save &report…")) {
            a->trigger();
        }
    }
    CHECK(QFileInfo::exists(folder + QStringLiteral("/report.md")));
    CHECK(QFileInfo::exists(folder + QStringLiteral("/report.html")));
}

TEST_CASE("Copy image draws the heatmap in the row order and colouring the window shows", "[window]")
{
    // #45: an export drew rows by rank and colour by state whatever the view showed.
    Opened opened(jobs().a);
    auto& w = opened.w;
    auto* state = w.viewState();
    w.heatmap()->setRowOrder(RowOrder::FirstStuck);
    w.heatmap()->setMetric(HeatmapMetric::TimeInCollectives);
    for (auto* a : w.findChildren<QAction*>()) {
        if (a->text() == QStringLiteral("&Copy image")) {
            a->trigger();
        }
    }
    const QImage copied = QApplication::clipboard()->image().convertToFormat(QImage::Format_RGB32);
    REQUIRE_FALSE(copied.isNull());
    const auto render = [&](RowOrder order, HeatmapMetric metric) {
        RenderRequest req;
        req.incident = state->selectedIncident();
        req.window = state->window();
        req.size = copied.size();
        req.dark = isDarkPalette(w.palette());
        req.annotations = state->annotations();
        req.rowOrder = order;
        req.metric = metric;
        QImage img(copied.size(), QImage::Format_RGB32);
        QPainter p(&img);
        const auto* o = w.opened();
        renderComposite(p, { o->snapshot, o->analysis, o->heatmap, o->linkHeatmap, o->fabricReview }, req);
        p.end();
        return img;
    };
    CHECK(copied == render(RowOrder::FirstStuck, HeatmapMetric::TimeInCollectives));
    CHECK(copied != render(RowOrder::Rank, HeatmapMetric::State));
}

namespace {

// Triggers the window's action bound to `keys`, as pressing them does.
bool press(MainWindow& w, const QKeySequence& keys)
{
    for (auto* a : w.findChildren<QAction*>()) {
        if (a->shortcut() == keys && a->isEnabled()) {
            a->trigger();
            QApplication::processEvents(); // the end of the user action: its history step closes
            return true;
        }
    }
    return false;
}

} // namespace

TEST_CASE("Alt+Left and Alt+Right walk back and forth through every view change, not only zooms", "[window]")
{
    Opened opened(jobs().a);
    auto& w = opened.w;
    auto* state = w.viewState();
    const auto all = state->window();
    REQUIRE_FALSE(state->canGoBack());
    REQUIRE(w.opened()->analysis->incidents.size() >= 1);

    // One user action: the incident is selected, zoomed to and its link plotted. One step back undoes all of it.
    w.incidentsPanel()->selectRow(0);
    QApplication::processEvents();
    REQUIRE(state->selectedIncident() == 1);
    const auto incidentWindow = state->window();
    const auto incidentLinks = state->selectedLinks();
    REQUIRE(incidentWindow.delta() < all.delta());
    REQUIRE_FALSE(incidentLinks.empty());

    // A rank selected, then a link's plot removed: two more steps.
    state->selectRank(5);
    QApplication::processEvents();
    state->deselectLink(incidentLinks.front());
    QApplication::processEvents();
    REQUIRE(state->selectedLinks().size() == incidentLinks.size() - 1);

    REQUIRE(press(w, QKeySequence(QKeySequence::Back)));
    CHECK(state->selectedLinks() == incidentLinks); // the removed plot is back
    CHECK(state->selectedRanks() == std::vector<std::uint32_t> { 5 });
    REQUIRE(press(w, QKeySequence(QKeySequence::Back)));
    CHECK(state->selectedRanks().empty());
    CHECK(state->window() == incidentWindow);
    REQUIRE(press(w, QKeySequence(QKeySequence::Back)));
    CHECK(state->window() == all); // the whole incident selection was one step
    CHECK(state->selectedIncident() == 0);
    CHECK(state->selectedLinks().empty());
    CHECK(w.incidentsPanel()->selectedRow() == -1); // the panel follows without zooming again
    CHECK_FALSE(state->canGoBack());

    REQUIRE(press(w, QKeySequence(QKeySequence::Forward)));
    CHECK(state->selectedIncident() == 1);
    CHECK(state->window() == incidentWindow);
    CHECK(state->selectedLinks() == incidentLinks);
    CHECK(w.incidentsPanel()->selectedRow() == 0);
    REQUIRE(press(w, QKeySequence(QKeySequence::Forward)));
    CHECK(state->selectedRanks() == std::vector<std::uint32_t> { 5 });

    // A new change after going back drops the steps ahead, as a browser does.
    REQUIRE(press(w, QKeySequence(QKeySequence::Back)));
    state->selectRank(7);
    QApplication::processEvents();
    CHECK_FALSE(state->canGoForward());

    // Saved, the history keeps its windows once each: steps that only changed the selection would come back
    // from the file as Alt+Left presses that change nothing.
    test::TempDir dir;
    const auto file = QString::fromStdString(dir.str("steps.stallscope"));
    answerSaveAs(file);
    REQUIRE(w.saveSession(false));
    const auto saved = loadSession(file.toStdString());
    INFO((saved ? std::string() : saved.error().format()) << " / " << w.statusBar()->currentMessage().toStdString());
    REQUIRE(saved);
    CHECK(saved->back == std::vector<TimeRange> { all });
    CHECK(saved->window == incidentWindow);
}

TEST_CASE("while a job opens its views say so, and with nothing open they say how to start", "[window]")
{
    test::IsolatedSettings settings;
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    CHECK(w.heatmap()->emptyText().startsWith(QStringLiteral("Open a bundle")));
    CHECK(w.incidentsPanel()->detailText().startsWith(QStringLiteral("Open a bundle")));
    // With no job open the fabric view does not claim a bundle without a topology.
    CHECK(w.topology()->emptyText().startsWith(QStringLiteral("Open a bundle")));
    // At the first stage (metadata read, heatmap and analysis under way) no view asks to open a bundle.
    QString heatmapSays, incidentsSay, linksSay, fabricSays;
    QObject::connect(&w, &MainWindow::stageShown, [&] {
        heatmapSays = w.heatmap()->emptyText();
        incidentsSay = w.incidentsPanel()->detailText();
        linksSay = w.linkHeatmap()->emptyText();
        fabricSays = w.topology()->emptyText();
    });
    REQUIRE(open(w, jobs().a));
    CHECK(heatmapSays.startsWith(QStringLiteral("Opening ")));
    CHECK(heatmapSays.contains(QString::fromStdString(std::filesystem::path(jobs().a).filename().string())));
    CHECK(incidentsSay.startsWith(QStringLiteral("Analysing")));
    CHECK(linksSay.startsWith(QStringLiteral("Building")));
    CHECK(fabricSays.startsWith(QStringLiteral("Reading")));
    // Opened: the incidents are listed, and nothing says it is still opening.
    CHECK_FALSE(w.incidentsPanel()->detailText().startsWith(QStringLiteral("Analysing")));
    CHECK(w.heatmap()->emptyText().startsWith(QStringLiteral("Open a bundle")));
    w.closeJob();
    CHECK(w.incidentsPanel()->detailText().startsWith(QStringLiteral("Open a bundle")));
}

TEST_CASE("the Hosts panel: a host with a port down leads, is marked in the fabric, and picks its ranks", "[window]")
{
    // The logs-only golden job (gpu-k001, gpu-k002 and their fabric) with an ibstat taken on gpu-k002 afterwards.
    test::TempDir dir;
    const auto folder = dir.path() / "job";
    std::filesystem::copy(test::testDataPath("logs-only/link"), folder, std::filesystem::copy_options::recursive);
    std::filesystem::create_directories(folder / "gpu-k002");
    std::ofstream(folder / "gpu-k002" / "ibstat.txt")
        << "CA 'mlx5_1'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tFirmware version: 28.39.1002\n"
           "\tNode GUID: 0x0c42a10300007004\n\tPort 1:\n\t\tState: Down\n\t\tPhysical state: Polling\n"
           "\t\tRate: 10\n\t\tBase lid: 65535\n\t\tSM lid: 1\n\t\tPort GUID: 0x0c42a10300007004\n"
           "\t\tLink layer: InfiniBand\n";
    Opened opened(folder.string());
    auto& w = opened.w;
    auto* hosts = w.hostsPanel();
    REQUIRE(hosts->hostCount() >= 2);
    CHECK(hosts->cellText(0, HostsPanel::kHost) == QStringLiteral("gpu-k002"));
    CHECK(hosts->cellText(0, HostsPanel::kFindings).contains(QStringLiteral("port down")));
    CHECK(hosts->cellText(0, HostsPanel::kState) == QStringLiteral("1 of 1 Down"));
    REQUIRE_FALSE(hosts->childTexts(0).isEmpty());
    CHECK(hosts->childTexts(0).front().startsWith(
        QStringLiteral("mlx5_1/1 — mlx5_1 port 1 is Down"))); // the finding leads
    const auto lines = hosts->childTexts(0).join(QLatin1Char('\n'));
    CHECK(lines.contains(QStringLiteral("mlx5_1/1 — Down / Polling")));
    CHECK(lines.contains(QStringLiteral("[ibstat]"))); // the tools that showed the port
    CHECK(w.topology()->flaggedHostCount() == 1);

    // Picking the host selects its ranks; Go to another host moves the panel's row with it.
    hosts->selectHostRow(0);
    CHECK(w.viewState()->selectedRanks() == std::vector<std::uint32_t> { 2, 3 });
    REQUIRE(w.goTo(QStringLiteral("gpu-k001")));
    CHECK(hosts->selectedHost() == QStringLiteral("gpu-k001"));

    // The filter belongs to this job: the next job opens with the whole list and none of these hosts.
    hosts->setFilterText(QStringLiteral("k002"));
    CHECK(hosts->visibleCount() == 1);
    REQUIRE(open(w, jobs().a)); // no notes: nothing to ask
    CHECK(hosts->filterText().isEmpty());
    CHECK(hosts->visibleCount() == hosts->hostCount());
    for (int i = 0; i < hosts->hostCount(); ++i) {
        CHECK_FALSE(hosts->cellText(i, HostsPanel::kHost).startsWith(QStringLiteral("gpu-k00")));
    }
    CHECK(w.topology()->flaggedHostCount() == 0);
}

TEST_CASE("a node folder of nvidia-smi outputs: the Hosts panel lists each GPU with its nearest NIC and NVLinks",
    "[window][nvidia_smi]")
{
    test::TempDir dir;
    const auto folder = dir.path() / "node";
    std::filesystem::create_directories(folder / "gpu-k014");
    std::filesystem::copy_file(test::testDataPath("node/gpu-k014.topo-m.txt"), folder / "gpu-k014" / "topo.txt");
    std::filesystem::copy_file(test::testDataPath("node/gpu-k014.nvlink-status.txt"), folder / "gpu-k014" / "nvlink.txt");
    std::filesystem::copy_file(test::testDataPath("node/gpu-b005.ibstat.txt"), folder / "gpu-b005.ibstat.txt");
    Opened opened(folder.string());
    auto* hosts = opened.w.hostsPanel();
    REQUIRE(hosts->hostCount() == 2);
    // Down, Disabled (Down too) and Initializing ports: not one state, so not called Down.
    const int b005 = hosts->cellText(0, HostsPanel::kHost) == QStringLiteral("gpu-b005") ? 0 : 1;
    CHECK(hosts->cellText(b005, HostsPanel::kState) == QStringLiteral("3 of 6 not Active"));
    hosts->setFilterText(QStringLiteral("k014"));
    REQUIRE(hosts->visibleCount() == 1);
    hosts->setFilterText({});
    const int k014 = 1 - b005;
    CHECK(hosts->cellText(k014, HostsPanel::kHost) == QStringLiteral("gpu-k014"));
    CHECK(hosts->cellText(k014, HostsPanel::kFindings).contains(QStringLiteral("GPU without NVLink")));
    CHECK(hosts->cellText(k014, HostsPanel::kHcas) == QStringLiteral("8 HCAs")); // the NICs nearest a GPU
    const auto lines = hosts->childTexts(k014);
    INFO(lines.join(QLatin1Char('\n')).toStdString());
    CHECK(lines.contains(
        QStringLiteral("GPU 6 — NVIDIA H100 80GB HBM3 · nearest mlx5_10 (PIX) · 18 NVLinks at 26.562 GB/s, 2 inactive")));
    CHECK(lines.contains(QStringLiteral("GPU 3 — NVIDIA H100 80GB HBM3 · nearest mlx5_5 (PIX) · 18 NVLinks, 18 inactive")));
    CHECK(lines.front().startsWith(QStringLiteral("GPU 3 — GPU 3"))); // a finding leads the lines
    hosts->setFilterText(QStringLiteral("mlx5_10"));
    CHECK(hosts->visibleCount() == 1);
    hosts->setFilterText(QStringLiteral("mlx5_77"));
    CHECK(hosts->visibleCount() == 0);
}

TEST_CASE("a few ranks' dumps among many: only their rows, from the View menu, kept per job and in a session",
    "[window][partial]")
{
    constexpr std::uint32_t kRecorded = 8;
    test::IsolatedSettings settings;
    test::TempDir out;
    const auto partial = out.str("one-host");
    test::writePartialRawFolder(*test::simulateOrFail(test::tinyConfig()).snapshot, partial, kRecorded);
    const auto sessionFile = QString::fromStdString(out.str("partial.stallscope"));
    auto menuAction = [](MainWindow& w) {
        for (auto* a : w.findChildren<QAction*>()) {
            if (a->text() == QStringLiteral("Only ranks with &records")) {
                return a;
            }
        }
        return static_cast<QAction*>(nullptr);
    };
    // The share of the heatmap's plot drawn in the unknown colour or its hatch, as drawn on screen once settled.
    auto unknownShare = [](MainWindow& w) {
        w.settleViews();
        const QImage img = w.heatmap()->grab().toImage();
        const auto plot = w.heatmap()->plotRect();
        const auto palette = HeatmapPalette::fromPalette(w.heatmap()->palette());
        std::size_t unknown = 0, all = 0;
        for (int y = plot.top() + 2; y < plot.bottom() - 2; y += 3) {
            for (int x = plot.left() + 2; x < plot.right() - 2; x += 3) {
                ++all;
                const auto c = img.pixelColor(x, y);
                unknown += c == palette.unknown || c == palette.unknownHatch;
            }
        }
        return double(unknown) / double(std::max<std::size_t>(all, 1));
    };
    // The rank under the top and bottom plot rows.
    auto edgeRanks = [](MainWindow& w) {
        const auto plot = w.heatmap()->plotRect();
        return std::pair { w.heatmap()->rankAt(QPoint(plot.left() + 1, plot.top())),
            w.heatmap()->rankAt(QPoint(plot.left() + 1, plot.bottom())) };
    };
    {
        MainWindow w;
        w.resize(1200, 800);
        w.show();
        REQUIRE(open(w, partial));
        auto* only = menuAction(w);
        REQUIRE(only);
        CHECK(only->isEnabled());
        CHECK_FALSE(only->isChecked());
        const auto ranks = w.opened()->snapshot->job.worldSize;
        REQUIRE(ranks > kRecorded);
        CHECK(edgeRanks(w).second == ranks - 1); // every rank, the unknown ones too
        CHECK(unknownShare(w) > 0.5);
        CHECK(w.heatmap()->fewRowsRecorded());
        // An image has no menu: unless told otherwise it shows the recorded rows; the window's export shows what
        // the view shows.
        const auto renderUnknown = [&](std::optional<bool> recordedOnly) {
            RenderRequest req;
            req.window = w.viewState()->window();
            req.size = QSize(1200, 700);
            req.recordedOnly = recordedOnly;
            QImage img(req.size, QImage::Format_RGB32);
            QPainter p(&img);
            const auto* o = w.opened();
            renderComposite(p, { o->snapshot, o->analysis, o->heatmap, o->linkHeatmap, o->fabricReview }, req);
            p.end();
            const auto palette = HeatmapPalette::fromPalette(w.heatmap()->palette());
            std::size_t unknown = 0;
            for (int y = 0; y < img.height(); y += 2) {
                for (int x = 0; x < img.width(); x += 2) {
                    const auto c = img.pixelColor(x, y);
                    unknown += c == palette.unknown || c == palette.unknownHatch;
                }
            }
            return unknown;
        };
        const auto all = renderUnknown(false);
        CHECK(all > 10000);
        CHECK(renderUnknown(std::nullopt) * 20 < all);
        CHECK(renderUnknown(true) * 20 < all);
        only->trigger();
        CHECK(w.heatmap()->rowsFiltered());
        CHECK(unknownShare(w) < 0.05); // the raster is redrawn for the rows shown, not the old one stretched
        CHECK(edgeRanks(w).first == 0u);
        CHECK(edgeRanks(w).second == kRecorded - 1); // the recorded ranks fill the height
        answerSaveAs(sessionFile);
        REQUIRE(w.saveSession(false));
        // Another job, every rank recorded: the option means nothing there and is off.
        REQUIRE(open(w, jobs().a));
        CHECK_FALSE(menuAction(w)->isEnabled());
        CHECK_FALSE(w.heatmap()->recordedOnly());
        CHECK_FALSE(w.heatmap()->rowsFiltered());
    }
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    REQUIRE(open(w, sessionFile.toStdString()));
    CHECK(w.heatmap()->recordedOnly());
    CHECK(menuAction(w)->isChecked());
    CHECK(edgeRanks(w).second == kRecorded - 1);
    CHECK(unknownShare(w) < 0.05);
}

TEST_CASE("a link that only erred lists its retrains and its drops, and they can be stepped through like flaps",
    "[window][fabric]")
{
    auto config = *presetConfig("small");
    config.durationNs = 300 * kNsPerSec;
    config.faults = { parseFaultSpec("errors:leaf-spine:leaf=1:spine=0:at=60s:count=3:gap=40s:pause=3s").value(),
        parseFaultSpec("errors:leaf-spine:leaf=2:spine=1:at=200s:count=1:gap=10s:pause=100ms:retrain=off").value() };
    test::TempDir dir;
    REQUIRE(writeBundle(*test::simulateOrFail(config).snapshot, dir.str("errors")).empty());
    Opened opened(dir.str("errors"));
    auto& w = opened.w;
    auto* flaps = w.flapsPanel();
    const auto& review = *w.opened()->fabricReview;
    REQUIRE(review.flapping.empty());
    auto rowOf = [&](const std::string& leaf) {
        for (int r = 0; r < flaps->rowCount(); ++r) {
            if (flaps->cellText(r, 0).contains(QString::fromStdString(leaf))) {
                return r;
            }
        }
        return -1;
    };
    const int retrains = rowOf("leaf-r1 p");
    REQUIRE(retrains >= 0);
    flaps->selectRow(retrains);
    REQUIRE(flaps->flapListCount() == 3);
    for (int i = 0; i < 3; ++i) {
        CHECK(flaps->flapListText(i).contains(QStringLiteral("retrained")));
    }
    auto* state = w.viewState();
    const auto& link = review.erroring[std::size_t(retrains)];
    CHECK(state->cursor() == link.retrainBrackets.back().end); // on the latest, as for a flap
    flaps->zoomToFlap(0);
    const TimeNs first = state->cursor();
    CHECK(link.retrainBrackets.front().contains(first));
    CHECK(state->window().delta() < 2 * 60 * kNsPerSec);
    REQUIRE(flaps->stepFlap(+1)); // View › Next flap walks this link's retrains
    CHECK(state->cursor() - first > 30 * kNsPerSec);
    REQUIRE(flaps->stepFlap(+1));
    CHECK_FALSE(flaps->stepFlap(+1));
    REQUIRE(flaps->stepFlap(-1));

    // The cable that dropped packets without retraining: its drop is listed as such.
    const int drops = rowOf("leaf-r2 p");
    REQUIRE(drops >= 0);
    flaps->selectRow(drops);
    REQUIRE(flaps->flapListCount() >= 1);
    CHECK(flaps->flapListText(0).contains(QStringLiteral("dropped packets, no retrain")));
}

TEST_CASE("a job Slurm cancelled at its time limit, with nothing else: the Incidents panel tells the logs' story",
    "[window][logs_job]")
{
    Opened opened(test::testDataPath("logs-only/slurm-time-limit").string());
    auto& w = opened.w;
    REQUIRE(w.opened());
    CHECK(w.opened()->snapshot->job.worldSize == 1);
    const auto said = w.incidentsPanel()->detailText();
    CHECK(said.startsWith(QStringLiteral("No job-wide stall, hang or straggler found in the logs")));
    CHECK(said.contains(QStringLiteral("Slurm cancelled the job at its time limit")));
    CHECK(said.contains(QStringLiteral("JOB 88120 ON gpu-t014")));
    // The one dated line gives the views a second, not a zero-width window.
    CHECK(w.viewState()->window().delta() == kNsPerSec);
}
