// SPDX-License-Identifier: MIT
#include "bundle/writer.h"
#include "core/snapshot_summary.h"
#include "import/open_job.h"
#include "plain_text.h"
#include "panels/summary_view.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <QImage>
#include <QTextDocument>

using namespace stallscope;
using namespace stallscope::test;

TEST_CASE("the summary view shows what loaded", "[widget]")
{
    const auto sim = simulateOrFail(tinyConfig());
    TempDir tmp;
    REQUIRE(writeBundle(*sim.snapshot, tmp.str("b")).empty());
    auto loaded = openJob(tmp.str("b"));
    REQUIRE(loaded.ok());
    SummaryView view;
    view.resize(800, 400);
    view.setSummary(summarize(tmp.str("b"), loaded.value()));
    CHECK(view.text().contains(QStringLiteral("64 ranks on 8 hosts")));
    CHECK(view.text().contains(QStringLiteral("NCCL_IB_TIMEOUT=20")));
    const QImage image = view.grab().toImage();
    CHECK(image.width() == 800);
    view.setMessage(QStringLiteral("hello"));
    CHECK(view.text() == QStringLiteral("hello"));
}

TEST_CASE("names from files show as text in labels and tooltips, never as markup that loads what it names", "[widget]")
{
    // A bundle whose job was named `<img src="/dev/zero">` made the summary's title (a QLabel at Qt::AutoText) read
    // /dev/zero on the GUI thread: 9 GB in 25 s, the window frozen. Here the image named is a red square.
    TempDir tmp;
    QImage red(64, 64, QImage::Format_RGB32);
    red.fill(Qt::red);
    REQUIRE(red.save(QString::fromStdString(tmp.str("red.png"))));
    SnapshotSummary summary;
    summary.jobName = "<img src=\"" + tmp.str("red.png") + "\"> job";
    SummaryView view;
    view.resize(800, 400);
    view.setSummary(summary);
    const QImage shot = view.grab().toImage().convertToFormat(QImage::Format_RGB32);
    int redPixels = 0;
    for (int y = 0; y < shot.height(); ++y) {
        for (int x = 0; x < shot.width(); ++x) {
            redPixels += shot.pixel(x, y) == qRgb(255, 0, 0);
        }
    }
    CHECK(redPixels == 0);

    // Tooltips: rich text that renders as exactly the text, line breaks kept.
    for (const QString& text : { QStringLiteral("<img src=\"/dev/zero\">"), QStringLiteral("<b>gpu</b> a < b & c"),
             QStringLiteral("file.prom:3: got \"<table>\"\nsecond line") }) {
        QTextDocument doc;
        doc.setHtml(plainTip(text));
        CHECK(doc.toPlainText() == text);
    }
    CHECK(plainTip(QString()).isEmpty()); // no tooltip stays no tooltip
    CHECK(htmlText("a<b>&") == QStringLiteral("a&lt;b&gt;&amp;"));
}

TEST_CASE("a note is drawn by its first line, cut to a label's length", "[widget]")
{
    // One note of 30 MB took `render --session` to 16 s and 1.2 GB: measured and laid out whole on every paint.
    CHECK(shortLabel("link flapped again") == QStringLiteral("link flapped again"));
    CHECK(shortLabel("first line\nsecond") == QStringLiteral("first line…"));
    const std::string huge(30'000'000, 'n');
    CHECK(shortLabel(huge).size() == 80);
    CHECK(shortLabel(huge).endsWith(QStringLiteral("…")));
    std::string accents;
    for (int i = 0; i < 200; ++i) {
        accents += "\xc3\xa9"; // é: two bytes each
    }
    const auto label = shortLabel(accents, 10);
    CHECK(label == QString(9, QChar(0xe9)) + QStringLiteral("…"));
    CHECK(shortLabel("", 10).isEmpty());
}
