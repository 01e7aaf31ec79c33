// SPDX-License-Identifier: MIT
#include "panels/hosts_panel.h"

#include "core/job_snapshot.h"
#include "view/view_state.h"

#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <set>

namespace stallscope {

namespace {

constexpr int kKeyRole = Qt::UserRole + 1; // the sort key of a host row's cell (int)
constexpr int kHostRole = Qt::UserRole; // a host row's index into m_hosts

// A host row sorts by a key of its own per column (trouble first, ranks in order); the lines under a host keep
// the order they were added in whatever column is sorted.
class KeyedItem : public QTreeWidgetItem
{
public:
    using QTreeWidgetItem::QTreeWidgetItem;
    bool operator<(const QTreeWidgetItem& other) const override
    {
        const int column = treeWidget() ? treeWidget()->sortColumn() : 0;
        const auto a = data(column, kKeyRole), b = other.data(column, kKeyRole);
        if (a.isValid() && b.isValid()) {
            return a.toLongLong() < b.toLongLong();
        }
        return QTreeWidgetItem::operator<(other);
    }
};

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

QString gbps(double v)
{
    return QString::number(v, 'g', 4) + QStringLiteral(" Gb/s");
}

// "8..15" for consecutive ranks, else "3 ranks".
QString rankRange(const std::vector<InventoryRank>& ranks)
{
    if (ranks.empty()) {
        return {};
    }
    const auto first = ranks.front().rank, last = ranks.back().rank;
    if (ranks.size() == 1) {
        return QString::number(first);
    }
    if (last - first + 1 == ranks.size()) {
        return QStringLiteral("%1..%2").arg(first).arg(last);
    }
    return QObject::tr("%n rank(s)", "", int(ranks.size()));
}

// The worst of a host's ports: "1 of 8 Down", "8 Active", "" without ports.
std::pair<QString, int> stateSummary(const HostInventory& h)
{
    if (h.ports.empty()) {
        return { h.goneHcas.empty() ? QString() : QObject::tr("HCA gone"), h.goneHcas.empty() ? 0 : -1 };
    }
    int notActive = 0;
    std::set<PortState> states; // of the ports not Active
    for (const auto& p : h.ports) {
        if (p.port.state != PortState::Active) {
            ++notActive;
            states.insert(p.port.state);
        }
    }
    const int n = int(h.ports.size());
    if (notActive == 0) {
        return { QObject::tr("%1 Active").arg(n), 0 };
    }
    // "2 of 6 Down" when they share a state; Down and Initializing together are "3 of 6 not Active".
    const auto state = states.size() == 1 ? q(std::string(toString(*states.begin()))) : QObject::tr("not Active");
    return { QObject::tr("%1 of %2 %3").arg(notActive).arg(n).arg(state), -notActive };
}

QString rateSummary(const HostInventory& h)
{
    std::set<double> rates;
    for (const auto& p : h.ports) {
        if (p.port.rate.gbps > 0) {
            rates.insert(p.port.rate.gbps);
        }
    }
    QStringList parts;
    for (auto it = rates.rbegin(); it != rates.rend(); ++it) {
        parts << QString::number(*it, 'g', 4);
    }
    if (parts.isEmpty()) {
        return {};
    }
    return parts.join(QStringLiteral(", ")) + QStringLiteral(" Gb/s")
        + (parts.size() > 1 ? QObject::tr(" (mixed)") : QString());
}

QString hcaSummary(const HostInventory& h)
{
    std::set<std::string> devices;
    for (const auto& p : h.ports) {
        devices.insert(p.port.device);
    }
    for (const auto& r : h.ranks) {
        if (!r.hca.empty()) {
            devices.insert(r.hca.substr(0, r.hca.find('/')));
        }
    }
    for (const auto& g : h.gpus) {
        if (!g.nearestNic.empty()) {
            devices.insert(g.nearestNic);
        }
    }
    if (devices.size() > 3) {
        return QObject::tr("%1 HCAs").arg(devices.size());
    }
    QStringList names;
    for (const auto& d : devices) {
        names << q(d);
    }
    return names.join(QStringLiteral(", "));
}

QString portLine(const InventoryPort& p)
{
    const auto& hp = p.port;
    QStringList parts;
    parts << q(std::string(toString(hp.state)))
            + (hp.phys == PhysState::Unknown ? QString() : QStringLiteral(" / ") + q(std::string(toString(hp.phys))));
    if (hp.rate.gbps > 0) {
        parts << gbps(hp.rate.gbps)
                + (hp.rate.width > 0
                        ? QStringLiteral(" (%1X%2)")
                              .arg(hp.rate.width)
                              .arg(hp.rate.speed.empty() ? QString() : QStringLiteral(" ") + q(hp.rate.speed))
                        : QString());
    }
    if (hp.lid) {
        parts << QObject::tr("LID %1").arg(*hp.lid);
    }
    if (hp.smLid) {
        parts << QObject::tr("SM LID %1").arg(*hp.smLid);
    }
    if (!hp.linkLayer.empty() && !hp.infiniband()) {
        parts << q(hp.linkLayer);
    }
    if (!hp.fw.empty()) {
        parts << QObject::tr("fw %1").arg(q(hp.fw));
    }
    if (hp.linkDowned) {
        parts << QObject::tr("link_downed %1").arg(*hp.linkDowned);
    }
    if (!hp.netdev.empty()) {
        parts << q(hp.netdev);
    }
    QStringList sources;
    for (const auto& s : p.sources) {
        sources << q(s);
    }
    return parts.join(QStringLiteral(" · ")) + QObject::tr("  [%1]").arg(sources.join(QStringLiteral(", ")));
}

// "H100 80GB HBM3 · nearest mlx5_3 (PIX) · 18 NVLinks at 26.562 GB/s, 2 inactive"
QString gpuLine(const InventoryGpu& g)
{
    QStringList parts;
    if (!g.model.empty()) {
        parts << q(g.model);
    }
    if (!g.nearestNic.empty()) {
        parts << QObject::tr("nearest %1 (%2)").arg(q(g.nearestNic), q(g.nearestPath));
    }
    if (g.nvlinks > 0) {
        parts << (g.nvlinks == 1 ? QObject::tr("1 NVLink") : QObject::tr("%1 NVLinks").arg(g.nvlinks))
                + (g.nvlinkGBps > 0 ? QObject::tr(" at %1 GB/s").arg(g.nvlinkGBps, 0, 'g', 5) : QString())
                + (g.inactiveNvlinks > 0 ? QObject::tr(", %1 inactive").arg(g.inactiveNvlinks) : QString());
    }
    return parts.join(QStringLiteral(" · "));
}

QString ranksLine(const HostInventory& h)
{
    QStringList uses;
    for (const auto& r : h.ranks) {
        uses << QObject::tr("rank %1 GPU %2%3%4")
                    .arg(r.rank)
                    .arg(r.localGpu)
                    .arg(r.gpuPci.empty() ? QString() : QStringLiteral(" (") + q(r.gpuPci) + QStringLiteral(")"))
                    .arg(!r.hca.empty()            ? QStringLiteral(" → ") + q(r.hca)
                            : !r.nearestNic.empty() ? QObject::tr(" → %1 (nearest)").arg(q(r.nearestNic))
                                                    : QString());
        if (uses.size() == 16 && h.ranks.size() > 16) {
            uses << QObject::tr("… %1 more").arg(h.ranks.size() - 16);
            break;
        }
    }
    return uses.join(QStringLiteral(", "));
}

// One line under a host: a label in the first column and its text spanning the rest.
struct HostLine
{
    QString label, text, tip;
};

// The lines under a host row, findings first.
std::vector<HostLine> hostLines(const HostInventory& h)
{
    std::vector<HostLine> out;
    for (const auto& f : h.findings) {
        out.push_back({ q(f.port.empty() ? f.kind : f.port), q(f.text), q(f.text + "\n" + f.evidence) });
    }
    for (const auto& c : h.conflicts) {
        out.push_back({ QObject::tr("sources disagree"), q(c), {} });
    }
    for (const auto& g : h.goneHcas) {
        out.push_back(
            { q(g.device), QObject::tr("vanished: %1").arg(q(g.evidence)), q(g.file + ":" + std::to_string(g.line)) });
    }
    for (const auto& p : h.ports) {
        out.push_back({ q(inventoryPortName(p.port)), portLine(p),
            q(p.port.file + ":" + std::to_string(p.port.line) + ": " + p.port.evidence) });
    }
    for (const auto& g : h.gpus) {
        out.push_back({ QObject::tr("GPU %1").arg(g.index), gpuLine(g), {} });
    }
    if (!h.ranks.empty()) {
        out.push_back({ QObject::tr("ranks"), ranksLine(h), {} });
    }
    if (h.notes > 0) {
        out.push_back({ QObject::tr("log lines"),
            QObject::tr("%n kernel, Fabric Manager, scheduler or exporter line(s) about this host: the Incidents' "
                        "evidence and info list them",
                "", int(h.notes)),
            {} });
    }
    return out;
}

void addLine(QTreeWidgetItem* host, const HostLine& line)
{
    // Spanning every column: a finding's sentence is longer than any column, and a cut one says nothing.
    auto* item = new KeyedItem(host, QStringList { line.label + QStringLiteral(" — ") + line.text });
    item->setToolTip(0, line.tip.isEmpty() ? line.text : line.tip);
    item->setFirstColumnSpanned(true);
    for (int c = 0; c < HostsPanel::kColumnCount; ++c) { // added order under any sorted column: findings first
        item->setData(c, kKeyRole, qlonglong(host->childCount()));
    }
}

} // namespace

HostsPanel::HostsPanel(ViewState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state)
    , m_filter(new QLineEdit(this))
    , m_empty(new QLabel(this))
    , m_tree(new QTreeWidget(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_filter);
    layout->addWidget(m_empty);
    layout->addWidget(m_tree, 1);
    m_filter->setPlaceholderText(tr("Filter hosts (name, HCA, finding: \"port down\", \"Xid\", \"mixed rates\")…"));
    m_filter->setClearButtonEnabled(true);
    m_empty->setWordWrap(true);
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setForegroundRole(QPalette::PlaceholderText);
    m_tree->setColumnCount(kColumnCount);
    m_tree->setHeaderLabels({ tr("Host"), tr("Findings"), tr("Ports"), tr("Rate"), tr("Ranks"), tr("HCAs") });
    m_tree->headerItem()->setToolTip(kFindings, tr("What node tools, sysfs copies and kernel logs show is wrong"));
    m_tree->headerItem()->setToolTip(kState, tr("The host's HCA ports as the node tools last showed them"));
    m_tree->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tree->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tree->setUniformRowHeights(true);
    m_tree->setTextElideMode(Qt::ElideRight); // a finding's sentence reads from its start
    m_tree->header()->setStretchLastSection(true);
    m_tree->header()->setSectionResizeMode(QHeaderView::Interactive);
    connect(m_filter, &QLineEdit::textChanged, this, &HostsPanel::applyFilter);
    connect(m_tree, &QTreeWidget::itemSelectionChanged, this, [this] {
        if (m_picking) {
            return;
        }
        const auto items = m_tree->selectedItems();
        if (items.isEmpty()) {
            return;
        }
        auto* row = items.front()->parent() ? items.front()->parent() : items.front();
        const auto& h = m_hosts[std::size_t(row->data(kHost, kHostRole).toInt())];
        if (h.ranks.empty()) {
            return; // a host without ranks in this job (a switch, a node folder alone): nothing to select
        }
        std::vector<std::uint32_t> ranks;
        for (const auto& r : h.ranks) {
            ranks.push_back(r.rank);
        }
        m_picking = true;
        m_state->selectRanks(std::move(ranks));
        m_picking = false;
    });
    connect(m_tree, &QTreeWidget::itemExpanded, this, [this](QTreeWidgetItem* row) { ensureLines(row); });
    connect(m_state, &ViewState::selectionChanged, this, &HostsPanel::followSelection);
    fill();
}

void HostsPanel::setSnapshot(std::shared_ptr<const JobSnapshot> snap, bool hideFindings)
{
    m_snap = std::move(snap);
    m_hideFindings = hideFindings;
    m_hosts = m_snap ? hostInventory(*m_snap, hideFindings ? std::vector<NodeFinding> {} : findNodeProblems(*m_snap))
                     : std::vector<HostInventory> {};
    if (hideFindings) { // the conflicts name the same ports the findings would
        for (auto& h : m_hosts) {
            h.conflicts.clear();
        }
    }
    fill();
}

void HostsPanel::fill()
{
    m_picking = true;
    m_tree->setSortingEnabled(false);
    m_tree->clear();
    m_tree->setUpdatesEnabled(false);
    for (std::size_t i = 0; i < m_hosts.size(); ++i) {
        const auto& h = m_hosts[i];
        auto* row = new KeyedItem(m_tree);
        row->setText(kHost, h.host.empty() ? tr("(host not named)") : q(h.host));
        row->setData(kHost, kHostRole, int(i));
        row->setData(kHost, kKeyRole, qlonglong(i)); // hostInventory's order: trouble first, then by name
        QStringList kinds;
        for (const auto& f : h.findings) {
            if (!kinds.contains(q(f.kind))) {
                kinds << q(f.kind);
            }
        }
        row->setText(kFindings,
            kinds.isEmpty() ? QString()
                            : QStringLiteral("%1: %2").arg(h.findings.size()).arg(kinds.join(QStringLiteral(", "))));
        row->setToolTip(kFindings, kinds.join(QLatin1Char('\n'))); // the column is narrower than the list of kinds
        row->setData(kFindings, kKeyRole,
            qlonglong(h.portDown()       ? 0
                    : h.findings.empty() ? 2
                                         : 1)
                    * 100000
                - qlonglong(h.findings.size()));
        const auto [state, stateKey] = stateSummary(h);
        row->setText(kState, state);
        row->setData(kState, kKeyRole, qlonglong(stateKey));
        row->setText(kRate, rateSummary(h));
        row->setData(kRate, kKeyRole, qlonglong(h.ports.empty() ? 0 : h.ports.front().port.rate.gbps * 1000));
        row->setText(kRanks, rankRange(h.ranks));
        row->setData(kRanks, kKeyRole, qlonglong(h.ranks.empty() ? -1 : qlonglong(h.ranks.front().rank)));
        row->setText(kHcas, hcaSummary(h));
        row->setData(kHcas, kKeyRole, qlonglong(h.ports.size()));
        if (h.portDown()) {
            row->setForeground(kFindings, QColor(0xd5, 0x5e, 0x00));
        }
        // The lines under a host are made when it is first expanded (ensureLines): 16,384 hosts of a 131,072-rank
        // job have ~180,000 of them, which the tree laid out and sorted for seconds on the GUI thread.
        row->setChildIndicatorPolicy(QTreeWidgetItem::ShowIndicator);
    }
    m_tree->setSortingEnabled(true);
    m_tree->sortByColumn(kHost, Qt::AscendingOrder);
    m_tree->setUpdatesEnabled(true);
    for (int c = 0; c < kColumnCount - 1; ++c) {
        m_tree->resizeColumnToContents(c);
        m_tree->setColumnWidth(c, std::min(m_tree->columnWidth(c), c == kFindings ? 260 : 160));
    }
    m_empty->setText(emptyText());
    m_empty->setVisible(m_hosts.empty());
    m_tree->setVisible(!m_hosts.empty());
    m_picking = false;
    applyFilter();
    followSelection();
}

QString HostsPanel::emptyText() const
{
    if (!m_snap) {
        return tr("Open a job or a folder of node files (ibstat, dmesg, a sysfs copy) to see its hosts.");
    }
    return m_hosts.empty() ? tr("Nothing in this job names a host: no ranks' hosts, node tools or kernel logs.")
                           : QString();
}

void HostsPanel::ensureLines(QTreeWidgetItem* row) const
{
    if (row->childCount() > 0 || row->parent()) {
        return;
    }
    const auto lines = hostLines(m_hosts[std::size_t(row->data(kHost, kHostRole).toInt())]);
    for (const auto& line : lines) {
        addLine(row, line);
    }
    row->setChildIndicatorPolicy(QTreeWidgetItem::DontShowIndicatorWhenChildless);
}

void HostsPanel::applyFilter()
{
    // A host matches on its row's text or on a line under it (a port, "GPU 3 — … nearest mlx5_10", a finding),
    // whether or not its lines were made yet. Rows whose state does not change are left alone: each setHidden asks the
    // tree for a new layout.
    const auto text = m_filter->text().trimmed();
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
        auto* row = m_tree->topLevelItem(i);
        bool match = text.isEmpty();
        for (int c = 0; c < kColumnCount && !match; ++c) {
            match = row->text(c).contains(text, Qt::CaseInsensitive);
        }
        if (!match) {
            const auto lines = hostLines(m_hosts[std::size_t(row->data(kHost, kHostRole).toInt())]);
            match = std::any_of(lines.begin(), lines.end(), [&](const HostLine& l) {
                return l.label.contains(text, Qt::CaseInsensitive) || l.text.contains(text, Qt::CaseInsensitive);
            });
        }
        if (row->isHidden() == match) {
            row->setHidden(!match);
        }
    }
}

void HostsPanel::followSelection()
{
    if (m_picking || !m_snap) {
        return;
    }
    const auto& ranks = m_state->selectedRanks();
    std::string host;
    for (const auto r : ranks) {
        const auto& name = r < m_snap->ranks.size() ? m_snap->str(m_snap->ranks[r].host) : std::string();
        if (name.empty() || (!host.empty() && name != host)) {
            host.clear();
            break;
        }
        host = name;
    }
    m_picking = true;
    m_tree->clearSelection();
    for (int i = 0; i < m_tree->topLevelItemCount() && !host.empty(); ++i) {
        auto* row = m_tree->topLevelItem(i);
        if (m_hosts[std::size_t(row->data(kHost, kHostRole).toInt())].host == host) {
            row->setSelected(true);
            m_tree->scrollToItem(row);
            break;
        }
    }
    m_picking = false;
}

void HostsPanel::setFilterText(const QString& text)
{
    m_filter->setText(text);
}

QString HostsPanel::filterText() const
{
    return m_filter->text();
}

int HostsPanel::hostCount() const
{
    return m_tree->topLevelItemCount();
}

int HostsPanel::visibleCount() const
{
    int n = 0;
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
        n += m_tree->topLevelItem(i)->isHidden() ? 0 : 1;
    }
    return n;
}

QString HostsPanel::cellText(int row, int column) const
{
    const auto* item = m_tree->topLevelItem(row);
    return item ? item->text(column) : QString();
}

QStringList HostsPanel::childTexts(int row) const
{
    QStringList out;
    if (auto* item = m_tree->topLevelItem(row)) {
        ensureLines(item);
        for (int k = 0; k < item->childCount(); ++k) {
            out << item->child(k)->text(0);
        }
    }
    return out;
}

void HostsPanel::selectHostRow(int row)
{
    if (auto* item = m_tree->topLevelItem(row)) {
        m_tree->clearSelection();
        item->setSelected(true);
    }
}

QString HostsPanel::selectedHost() const
{
    const auto items = m_tree->selectedItems();
    if (items.isEmpty()) {
        return {};
    }
    const auto* row = items.front()->parent() ? items.front()->parent() : items.front();
    return q(m_hosts[std::size_t(row->data(kHost, kHostRole).toInt())].host);
}

std::vector<std::string> HostsPanel::flaggedHosts() const
{
    std::vector<std::string> out;
    for (const auto& h : m_hosts) {
        if (!h.findings.empty()) {
            out.push_back(h.host);
        }
    }
    return out;
}

} // namespace stallscope
