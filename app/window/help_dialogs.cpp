// SPDX-License-Identifier: MIT
#include "window/help_dialogs.h"
#include "plain_text.h"

#include "stallscope_version.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QMessageBox>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

namespace stallscope {

namespace {

// Shows `d` (non-modal, deleted when closed) holding `content` above a Close button.
void showClosable(QDialog* d, const QString& name, const QString& title, QWidget* content, QSize size)
{
    d->setObjectName(name);
    d->setAttribute(Qt::WA_DeleteOnClose);
    d->setWindowTitle(title);
    auto* layout = new QVBoxLayout(d);
    layout->addWidget(content);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, d);
    QObject::connect(buttons, &QDialogButtonBox::rejected, d, &QDialog::close);
    layout->addWidget(buttons);
    d->resize(size);
    d->show();
}

} // namespace

void HelpDialogs::showDocumentation(QWidget* parent)
{
    const QStringList candidates = {
        QCoreApplication::applicationDirPath() + QStringLiteral("/../share/doc/stallscope"),
        QStringLiteral(STALLSCOPE_SOURCE_DIR),
    };
    QString readme;
    for (const auto& dir : candidates) {
        if (QFileInfo::exists(dir + QStringLiteral("/README.md"))) {
            readme = QFileInfo(dir + QStringLiteral("/README.md")).canonicalFilePath();
            break;
        }
    }
    if (readme.isEmpty()) {
        warnPlain(parent, tr("Documentation"),
            tr("The documentation is not installed (looked in %1).").arg(candidates.join(QStringLiteral(", "))));
        return;
    }
    auto* d = new QDialog(parent);
    auto* browser = new QTextBrowser(d);
    browser->setOpenExternalLinks(true);
    browser->setSource(QUrl::fromLocalFile(readme), QTextDocument::MarkdownResource);
    showClosable(d, QStringLiteral("documentation"), tr("Stallscope documentation"), browser, { 900, 700 });
}

void HelpDialogs::showShortcuts(QWidget* parent)
{
    auto* sheet = new QDialog(parent);
    auto* text = new QTextBrowser(sheet);
    QString rows;
    const std::pair<const char*, const char*> keys[] = {
        { "Ctrl+O", "Open a bundle, a folder of raw files or a review session" },
        { "Ctrl+S / Ctrl+Shift+S", "Save the review session / save it as" },
        { "Ctrl+W", "Close the job (asks before unsaved notes are lost)" },
        { "Ctrl+M", "Add a note at the pinned cursor" },
        { "Ctrl+G", "Go to a rank or a host (selects its ranks)" },
        { "F1", "Documentation" },
        { "Click", "Pin the cursor (notes and exports use it); hover shows a crosshair in every view" },
        { "] / [", "Next / previous incident" },
        { ". / ,", "Next / previous flap (of the link selected in the Flaps panel, else of every link)" },
        { "W / S", "Zoom in / out around the pointer (a view has focus)" },
        { "A / D, ← / →", "Pan left / right" },
        { "Ctrl+= / Ctrl+-", "Zoom in / out around the pinned cursor" },
        { "Ctrl+0", "Zoom to the whole job" },
        { "Alt+← / Alt+→", "Back / forward through view changes: zooms and selections" },
        { "Wheel / drag / Shift+drag", "Zoom / pan / zoom to a span, in every time view" },
        { "Ctrl+wheel", "Zoom the rank rows" },
        { "Ctrl+E / Ctrl+C", "Export the view / copy it as an image" },
        { "Ctrl+H / Ctrl+Enter", "Training: a hint / check the answer" },
        { "F11", "Full screen" },
        { "?", "This sheet" },
    };
    for (const auto& [k, what] : keys) {
        rows += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(tr(k).toHtmlEscaped(), tr(what).toHtmlEscaped());
    }
    text->setHtml(QStringLiteral("<table cellspacing=6>%1</table>").arg(rows));
    showClosable(sheet, QStringLiteral("shortcutSheet"), tr("Keyboard shortcuts"), text, { 560, 520 });
}

void HelpDialogs::showAbout(QWidget* parent)
{
    QMessageBox::about(parent, tr("About Stallscope"),
        tr("<h3>Stallscope %1</h3><p>Incident review for large GPU training jobs: every rank's collectives, "
           "the fabric's counters and topology, on one time axis.</p><p>Qt %2 (built with %3)</p>")
            .arg(QStringLiteral(STALLSCOPE_VERSION_BUILD), QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR)));
}

} // namespace stallscope
