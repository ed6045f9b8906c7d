/** How the alert mailer paces, retries and times out its emails (from `SNSR_ALERT_EMAIL_*`). */
export interface AlertMailerSettings {
  /** Where users reach the dashboard: the links in the email. */
  publicUrl: string;
  /** Least time between two emails to one account: what is raised meanwhile goes in the next one. */
  intervalMs: number;
  /** Wait after an alert is announced, so that a burst goes out as one email. */
  settleMs: number;
  /** Pause between passes when nothing is announced (notifications can be missed). */
  pollMs: number;
  /** First wait after a failed send; doubled on each further failure, up to `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
  /** A send SMTP has not answered within this is a failure (well under the lease's term). */
  sendTimeoutMs: number;
}

/** What one pass of the mailer did. */
export interface PassOutcome {
  sent: number;
  failed: number;
  /** when (epoch ms) an account held back (interval, retry) is due */
  dueAt: number;
}
