/** The server's rule (spec: at least 6 characters with upper case, lower case and digits). */
export function passwordRules(password: string, confirmation: string): [string, boolean][] {
  return [
    ['At least 6 characters', password.length >= 6],
    ['An upper-case letter', /[A-Z]/.test(password)],
    ['A lower-case letter', /[a-z]/.test(password)],
    ['A digit', /[0-9]/.test(password)],
    ['Confirmation matches', password !== '' && password === confirmation],
  ];
}

export function PasswordPolicy({ id, password, confirmation }: { id: string; password: string; confirmation: string }) {
  return (
    <ul id={id} class="policy" aria-label="Password rules">
      {passwordRules(password, confirmation).map(([rule, met]) => (
        <li key={rule} class={met ? 'met' : 'unmet'}>
          <span aria-hidden="true">{met ? '✓' : '○'}</span> {rule}
          <span class="visually-hidden">{met ? ': met' : ': not met yet'}</span>
        </li>
      ))}
    </ul>
  );
}
