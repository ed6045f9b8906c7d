import { Command } from 'commander';
import type { WebhookHealth } from '../../domain/webhooks.js';
import { withContext } from '../run-with-context.js';
import { positiveInteger } from './deliveries.js';

const iso = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Label and value lines for people; `--json` gives what GET /iot/developers/apps/health.json answers. */
function text(health: WebhookHealth): string {
  const { counts, latency, lastError, successRate } = health;
  const lines: [string, string][] = [
    ['app', `${health.appId}, the last 24 h (since ${iso(health.since)})`],
    ['delivered', String(counts.delivered)],
    ['failed', String(counts.failed)],
    ['retrying', String(counts.retrying)],
    ['queued', String(counts.queued)],
    ['success rate', successRate === null ? '- (nothing ended)' : `${(successRate * 100).toFixed(1)} %`],
    ['latency', latency.samples === 0 ? '- (no request)' : `p50 ${latency.p50} ms, p95 ${latency.p95} ms (${latency.samples} requests)`],
    ['last error', lastError === null ? '-' : `${iso(lastError.at)} delivery ${lastError.delivery}: ${lastError.error}`],
  ];
  return lines.map(([label, value]) => `${label.padEnd(13)}${value}`).join('\n');
}

export function appsCommand(): Command {
  const apps = new Command('apps').description("apps' webhooks: health of their callbacks");
  apps
    .command('health')
    .description("how an app's callbacks went over the last day: counts, success rate, latency p50/p95, last error")
    .argument('<id>', 'app id', positiveInteger)
    .option('--json', 'print JSON, as GET /iot/developers/apps/health.json answers')
    .addHelpText('after', '\nExample:\n  snsr apps health 3')
    .action(async (id: number, options: { json?: boolean }) => {
      await withContext(async (context) => {
        const health = await context.webhooks.healthAny(id);
        const { presentWebhookHealth } = await import('../../http/presenters/webhooks.js');
        console.log(options.json ? JSON.stringify(presentWebhookHealth(health), null, 2) : text(health));
      });
    });
  return apps;
}
