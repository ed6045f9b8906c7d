import { api } from '../api/api';
import type { AlertEmailSetting } from '../api/types';
import { Notice } from './notice';
import { Section } from './page';
import { useAction, useLoad } from '../hooks';

/** My Account's switch for alert emails: off and explained when the server cannot send email. */
export function AlertEmailSection({ email }: { email: string }) {
  const setting = useLoad(() => api.alertEmail(), []);
  const save = useAction(async (on: boolean, before: AlertEmailSetting) => {
    // The switch shows the choice at once; a refusal puts it back.
    setting.set({ ...before, email: on });
    let saved: AlertEmailSetting;
    try {
      saved = await api.setAlertEmail(on);
    } catch (error) {
      setting.set(before);
      throw error;
    }
    setting.set(saved);
    return saved.email ? `Alerts will be emailed to ${email}.` : 'Alert emails are off; alerts not emailed yet will not be.';
  });
  const data = setting.data;
  const unavailable = data !== undefined && !data.email_available;
  return (
    <Section title="Alert emails" id="alert-email-title">
      <p>
        When a watched device raises an alert, snsr can email it to {email}: one email at a time with everything raised since the
        last one, with a link to the module's page.
      </p>
      <Notice error={setting.error} />
      {data && (
        <label class="check">
          <input
            type="checkbox"
            role="switch"
            checked={data.email}
            disabled={save.busy || (unavailable && !data.email)}
            aria-describedby={unavailable ? 'alert-email-unavailable' : undefined}
            onChange={(event) => void save.run(event.currentTarget.checked, data)}
          />
          Email me when an alert is raised
        </label>
      )}
      {unavailable && (
        <p id="alert-email-unavailable" class="hint">
          This server cannot send email: its operator has not configured SMTP (<code>SNSR_SMTP_URL</code>), so alert emails are not
          available.
        </p>
      )}
      <Notice error={save.error} done={save.done} />
    </Section>
  );
}
