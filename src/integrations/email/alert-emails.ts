import type { AlertDigest } from '../../domain/alert-email.js';
import type { Alert } from '../../domain/alerts.js';
import type { Email } from './mailer.js';

const utc = (date: Date) => date.toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC');

/** The dashboard page of a module (children are shown on their module's page). */
export const modulePage = (publicUrl: string, serial: string) => `${publicUrl}/modules/${encodeURIComponent(serial)}`;

function describe(alert: Alert, publicUrl: string): string[] {
  const named = alert.deviceName === null ? '' : ` (${alert.deviceName})`;
  const device = alert.deviceSerial === alert.moduleSerial ? `module ${alert.moduleSerial}${named}` : `device ${alert.deviceSerial}${named} of module ${alert.moduleSerial}`;
  return [
    `${alert.message}`,
    `  Device:  ${device}`,
    `  Kind:    ${alert.kind}`,
    `  Raised:  ${utc(alert.raised)}`,
    ...(alert.ended ? [`  Ended:   ${utc(alert.ended)} (${alert.endMessage ?? 'ended'})`] : []),
    `  Module:  ${modulePage(publicUrl, alert.moduleSerial)}`,
  ];
}

/**
 * The alert email (plain text: it is read, not rendered): one alert, or a digest of everything that
 * waited for this account since its last email, listing the first ones and counting the rest.
 */
export function alertEmail(digest: AlertDigest, publicUrl: string): Email {
  const { alerts, ids } = digest;
  const first = alerts[0]!;
  const rest = ids.length - alerts.length;
  const modules = new Set(alerts.map((alert) => alert.moduleSerial));
  const subject =
    ids.length === 1
      ? `snsr alert: ${first.message} on ${first.deviceSerial}`
      : `snsr: ${ids.length} new alerts${rest === 0 ? ` on ${modules.size === 1 ? `module ${first.moduleSerial}` : `${modules.size} modules`}` : ''}`;
  const intro = ids.length === 1 ? 'A watched device raised an alert:' : `Watched devices raised ${ids.length} alerts since the last email:`;
  return {
    to: digest.to,
    subject,
    text: [
      'Hello,',
      '',
      intro,
      '',
      ...alerts.flatMap((alert) => [...describe(alert, publicUrl), '']),
      ...(rest > 0 ? [`... and ${rest} more. All alerts of your modules: ${publicUrl}/`, ''] : []),
      `Acknowledge alerts on the module's page. These emails go to ${digest.to} because alert emails are on`,
      `for this snsr account; turn them off under My Account: ${publicUrl}/account`,
    ].join('\n'),
  };
}
