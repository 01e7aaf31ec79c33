// SPDX-License-Identifier: MIT
#include "window/prometheus_dialog.h"

#include <QCheckBox>
#include <QDateTime>
#include <QDateTimeEdit>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>

namespace stallscope {

std::optional<PrometheusChoice> askPrometheusQuery(QWidget* parent, TimeRange range, bool offerJob)
{
    QDialog dialog(parent);
    dialog.setWindowTitle(QDialog::tr("Open from Prometheus"));
    auto* form = new QFormLayout(&dialog);
    QSettings settings;
    auto* url = new QLineEdit(
        settings.value(QStringLiteral("prometheus/url"), QStringLiteral("http://127.0.0.1:9090")).toString());
    auto makeEdit = [](TimeNs t) {
        auto* e = new QDateTimeEdit(QDateTime::fromMSecsSinceEpoch(t / kNsPerMs, Qt::UTC));
        e->setTimeSpec(Qt::UTC);
        e->setDisplayFormat(QStringLiteral("yyyy-MM-dd HH:mm:ss 'UTC'"));
        return e;
    };
    auto* from = makeEdit(range.start);
    auto* to = makeEdit(range.end);
    auto* matchers = new QLineEdit(settings.value(QStringLiteral("prometheus/matchers")).toString());
    matchers->setPlaceholderText(QDialog::tr("label matchers, separated by ';' — e.g. instance=~\"gpu-a0.*\""));
    form->addRow(QDialog::tr("Server URL"), url);
    form->addRow(QDialog::tr("From"), from);
    form->addRow(QDialog::tr("To"), to);
    form->addRow(QDialog::tr("Matchers"), matchers);
    // A job's raw folder is open: its counters can come from the server, chosen by its span, hosts and switches.
    QCheckBox* forJob = nullptr;
    if (offerJob) {
        forJob = new QCheckBox(QDialog::tr("Counters for the open job: its span, hosts and switches choose the series"));
        forJob->setChecked(true);
        const auto sync = [from, to](bool on) {
            from->setEnabled(!on);
            to->setEnabled(!on);
        };
        QObject::connect(forJob, &QCheckBox::toggled, &dialog, sync);
        sync(true);
        form->addRow(forJob);
    }
    form->addRow(new QLabel(QDialog::tr("Credentials come from STALLSCOPE_PROMETHEUS_TOKEN (Bearer) or _USER / "
                                        "_PASSWORD (Basic) in the environment; they are never saved.")));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    form->addRow(buttons);
    QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    if (dialog.exec() != QDialog::Accepted) {
        return std::nullopt;
    }
    settings.setValue(QStringLiteral("prometheus/url"), url->text());
    settings.setValue(QStringLiteral("prometheus/matchers"), matchers->text());
    PrometheusChoice choice;
    auto& q = choice.query;
    q.url = url->text().trimmed().toStdString();
    q.range = TimeRange { TimeNs(from->dateTime().toMSecsSinceEpoch()) * kNsPerMs,
        TimeNs(to->dateTime().toMSecsSinceEpoch()) * kNsPerMs };
    for (const auto& m : matchers->text().split(QLatin1Char(';'), Qt::SkipEmptyParts)) {
        q.matchers.push_back(m.trimmed().toStdString());
    }
    if (forJob && forJob->isChecked()) {
        q.range = {}; // the job's span, padded (loadJobWithPrometheus)
        choice.forOpenJob = true;
    }
    return choice;
}

} // namespace stallscope
