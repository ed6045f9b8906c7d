/**
 * The emails account self-service sends. The domain says what to send; `integrations/email`
 * says how. Sending is queued: a request never waits on (or reveals anything through) SMTP.
 */
export interface AccountMail {
  /** A new sign-up: the link activates the account with the password chosen with it. */
  activation(to: string, link: string, expires: Date): void;
  /** Someone signed up with an address that already has an account. */
  alreadyRegistered(to: string, signInLink: string, resetLink: string): void;
  passwordReset(to: string, link: string, expires: Date): void;
}
