import type { AccountMail } from '../../domain/account-mail.js';
import type { Mailer } from './mailer.js';

const when = (date: Date) => date.toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC');

const IGNORE = 'If you did not ask for this, ignore this email: nothing changes.';

/** The texts of the account emails (plain text: they are read, not rendered). */
export function accountEmails(mailer: Mailer): AccountMail {
  return {
    activation: (to, link, expires) =>
      mailer.queue({
        to,
        subject: 'Activate your snsr account',
        text: [
          'Hello,',
          '',
          'Someone (we hope you) signed up for a developer account on snsr with this address.',
          'Open this link to activate it, then sign in with the email and password you chose:',
          '',
          link,
          '',
          `The link works once, until ${when(expires)}; after that, sign up again.`,
          `${IGNORE} No account is created.`,
        ].join('\n'),
      }),
    alreadyRegistered: (to, signInLink, resetLink) =>
      mailer.queue({
        to,
        subject: 'Your snsr account',
        text: [
          'Hello,',
          '',
          'Someone (we hope you) tried to sign up on snsr with this address, which already has an account.',
          `Sign in at ${signInLink}`,
          `Forgot your password? Ask for a new one at ${resetLink}`,
          '',
          IGNORE,
        ].join('\n'),
      }),
    passwordReset: (to, link, expires) =>
      mailer.queue({
        to,
        subject: 'Reset your snsr password',
        text: [
          'Hello,',
          '',
          'Someone (we hope you) asked to reset the password of your snsr account.',
          'Open this link to choose a new one; it signs you out everywhere:',
          '',
          link,
          '',
          `The link works once, until ${when(expires)}.`,
          `${IGNORE} Your password stays as it is.`,
        ].join('\n'),
      }),
  };
}
