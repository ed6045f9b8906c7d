import { useMemo } from 'preact/hooks';
import { api } from '../api/api';
import type { Alert, Overview } from '../api/types';
import { AlertKind } from '../components/alert-list';
import { Notice } from '../components/notice';
import { Page, Section } from '../components/page';
import { TimeChart } from '../components/time-chart';
import type { ChartSeries } from '../components/time-chart';
import { formatRelative, formatTime, isoTime, plural } from '../format';
import { useInterval, useLoad } from '../hooks';
import { useDebouncedCall, useLiveEvents } from '../live-hooks';
import type { LiveFilter } from '../live-hooks';
import { LiveIndicator } from '../components/live-indicator';
import { Link } from '../router';

const count = new Intl.NumberFormat();
/** The polling period while the live stream is offline. */
const REFRESH_MS = 30_000;
/** Every module of the account. */
const ALL: LiveFilter = {};

/** One figure and where it leads. */
function Tile({ label, value, href, tone, detail }: { label: string; value: number; href: string; tone?: 'bad' | 'warn'; detail?: string }) {
  return (
    <li class={`tile${tone && value > 0 ? ` tile-${tone}` : ''}`}>
      <Link href={href} aria-label={`${label}: ${count.format(value)}${detail ? `, ${detail}` : ''}`}>
        <span class="tile-value" data-figure={label}>
          {count.format(value)}
        </span>
        <span class="tile-label">{label}</span>
        {detail && <span class="tile-detail">{detail}</span>}
      </Link>
    </li>
  );
}

function UplinkChart({ uplinks }: { uplinks: Overview['uplinks'] }) {
  const times = useMemo(() => uplinks.map((b) => b.hour + 1_800_000), [uplinks]);
  const total = uplinks.reduce((sum, b) => sum + b.count, 0);
  const peak = uplinks.reduce((best, b) => (b.count > best.count ? b : best), uplinks[0] ?? { hour: 0, count: 0 });
  const series = useMemo<ChartSeries[]>(
    () => [{ label: 'Uplinks', unit: '', color: '--chart-volts', digits: 0, scale: 'n', values: uplinks.map((b) => b.count), bars: true }],
    [uplinks],
  );
  const summary =
    total === 0
      ? 'No uplink in the last 24 hours.'
      : `Uplinks per hour over the last 24 hours: ${count.format(total)} in all, at most ${count.format(peak.count)} (the hour from ${formatTime(peak.hour)}).`;
  return <TimeChart times={times} series={series} summary={summary} height={200} hourly />;
}

function AlertRow({ alert }: { alert: Alert }) {
  return (
    <li data-alert={alert.id}>
      <Link href={`/modules/${encodeURIComponent(alert.module)}`} class="mono">
        {alert.device}
      </Link>{' '}
      {alert.name && <span class="device-name">{alert.name}</span>}{' '}
      <AlertKind alert={alert} /> <span>{alert.message}</span>{' '}
      <time class="muted" dateTime={isoTime(alert.when)} title={formatTime(alert.when)}>
        {formatRelative(alert.when)}
      </time>
    </li>
  );
}

/** The landing page: the fleet at a glance, every figure a link to where it is, kept current by the live stream. */
export function OverviewPage() {
  const overview = useLoad(() => api.overview(), []);
  const reload = () => void overview.reload();
  // Alerts and delivery outcomes move the counters at once; messages only the hourly chart and
  // "seen in the last 24 h", read for them at most every 30 s.
  const soon = useDebouncedCall(reload, 500, 3000);
  const later = useDebouncedCall(reload, 2000, REFRESH_MS);
  const live = useLiveEvents(ALL, (type) => (type === 'message' ? later() : soon()));
  useInterval(reload, REFRESH_MS, live === 'offline');
  const data = overview.data;
  const problems = data ? data.alerts.lost_contact_latest.length + data.deliveries.apps.length : 0;
  return (
    <Page
      title="Overview"
      lead={data ? `As of ${formatTime(data.generated)}.` : 'Your fleet at a glance.'}
      actions={<LiveIndicator status={live} fallbackMs={REFRESH_MS} />}
    >
      <Notice error={overview.error} />
      {data && (
        <>
          <ul class="tiles" aria-label="Fleet figures">
            <Tile label="Modules" value={data.modules.total} href="/modules" />
            <Tile label="Seen in the last 24 h" value={data.modules.seen_24h} href="/modules?state=seen-24h" />
            <Tile label="Open alerts" value={data.alerts.open} href="/modules?state=alerting&sort=alerts" tone="bad" />
            <Tile
              label="Failed deliveries"
              value={data.deliveries.failed}
              href={data.deliveries.apps.length === 1 ? `/apps/${data.deliveries.apps[0]!.id}` : '/apps'}
              tone="bad"
              detail={data.deliveries.apps.length > 0 ? plural(data.deliveries.apps.length, 'app') : undefined}
            />
            <Tile label="Battery low" value={data.modules.low_battery} href="/modules?state=low-battery" tone="warn" />
            <Tile label="Never seen" value={data.modules.never_seen} href="/modules?state=never-seen" />
          </ul>
          {data.modules.total === 0 && (
            <p class="notice notice-info">
              No module is registered to your account yet: <Link href="/modules">register them on the Modules page</Link> with the key printed on each.
            </p>
          )}
          <div class="overview-grid">
            <Section title="Uplinks per hour, last 24 h" id="overview-uplinks">
              <UplinkChart uplinks={data.uplinks} />
            </Section>
            <Section title="Problems" id="overview-problems">
              {problems === 0 && <p class="empty">No module out of contact, no failing callback.</p>}
              {data.alerts.lost_contact_latest.length > 0 && (
                <>
                  <h3 class="subhead">Lost contact ({count.format(data.alerts.lost_contact)})</h3>
                  <ul class="plain-list" aria-label="Modules out of contact">
                    {data.alerts.lost_contact_latest.map((alert) => (
                      <AlertRow key={alert.id} alert={alert} />
                    ))}
                  </ul>
                </>
              )}
              {data.deliveries.apps.length > 0 && (
                <>
                  <h3 class="subhead">Failing callbacks</h3>
                  <ul class="plain-list" aria-label="Apps with failed deliveries">
                    {data.deliveries.apps.map((app) => (
                      <li key={app.id} data-app={app.id}>
                        <Link href={`/apps/${app.id}`}>{app.name}</Link>
                        <span>{plural(app.failed, 'failed delivery', 'failed deliveries')}</span>
                        {app.last_failed !== null && <span class="muted">last {formatRelative(app.last_failed)}</span>}
                        {app.last_error && <span class="muted break line">{app.last_error}</span>}
                      </li>
                    ))}
                  </ul>
                </>
              )}
            </Section>
          </div>
          <Section title="Latest alerts" id="overview-alerts" actions={<Link href="/modules?state=alerting&sort=alerts">Modules with open alerts</Link>}>
            {data.alerts.latest.length === 0 ? (
              <p class="empty">No alert yet. Watched modules raise them (battery, temperature, signal, lost contact).</p>
            ) : (
              <ul class="plain-list" aria-label="Latest alerts">
                {data.alerts.latest.map((alert) => (
                  <AlertRow key={alert.id} alert={alert} />
                ))}
              </ul>
            )}
          </Section>
        </>
      )}
    </Page>
  );
}
