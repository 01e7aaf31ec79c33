// SPDX-License-Identifier: MIT
#include "open/refusal.h"

#include "import/folder/raw_folder.h"

#include <QCoreApplication>
#include <QFontMetrics>

#include <filesystem>

namespace stallscope {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("Refusal", text);
}

} // namespace

QString refusalTitle(const std::string& path)
{
    namespace fs = std::filesystem;
    if (path.rfind("http://", 0) == 0 || path.rfind("https://", 0) == 0) {
        return tr("Could not open the Prometheus server");
    }
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        return isRawFolder(path) ? tr("Could not open the folder") : tr("Could not open the bundle"); // as openJob
    }
    const auto name = fs::path(path).filename().string();
    return name.empty() ? tr("Could not open the folder") : tr("Could not open %1").arg(QString::fromStdString(name));
}

QString refusalStatus(const QString& message, const QFontMetrics& metrics, int width)
{
    auto line = tr("Could not open: %1").arg(message).simplified(); // newlines and runs of spaces become one space
    return metrics.elidedText(line, Qt::ElideRight, std::max(width, 0));
}

} // namespace stallscope
