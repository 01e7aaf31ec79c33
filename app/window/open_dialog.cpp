// SPDX-License-Identifier: MIT
#include "window/open_dialog.h"

#include <QFileDialog>
#include <QFileInfo>

namespace stallscope {

bool openablePath(const QString& path)
{
    const QFileInfo info(path);
    return info.isDir() || (info.isFile() && path.endsWith(QStringLiteral(".stallscope")));
}

namespace {

// Folder mode accepts only folders; a selected session file is accepted here too.
class OpenDialog : public QFileDialog
{
public:
    using QFileDialog::QFileDialog;

    void accept() override
    {
        const auto files = selectedFiles();
        if (!files.isEmpty() && QFileInfo(files.first()).isFile() && openablePath(files.first())) {
            QDialog::accept();
            return;
        }
        QFileDialog::accept();
    }
};

} // namespace

QString chooseOpenPath(QWidget* parent, const QString& startDir)
{
    OpenDialog dialog(parent,
        QObject::tr("Open a bundle, a folder of raw files (dumps, logs, counters, topology) or a review session"),
        startDir);
    dialog.setOption(QFileDialog::DontUseNativeDialog); // the native folder chooser cannot show session files
    dialog.setFileMode(QFileDialog::Directory);
    dialog.setOption(QFileDialog::ShowDirsOnly, false);
    dialog.setNameFilters({ QObject::tr("Bundles, folders and review sessions (*.stallscope)"),
        QObject::tr("All files (*)") });
    dialog.setLabelText(QFileDialog::Accept, QObject::tr("Open"));
    if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty()) {
        return {};
    }
    return dialog.selectedFiles().first();
}

} // namespace stallscope
