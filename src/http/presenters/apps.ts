import { Type } from 'typebox';
import type { App } from '../../domain/types.js';
import { legacyDate } from '../../wire/legacy-date.js';

export const AppSchema = Type.Object({
  id: Type.Integer(),
  key: Type.String(),
  secret: Type.String(),
  name: Type.String(),
  description: Type.String(),
  callbackurl: Type.Optional(Type.String({ format: 'uri' })),
  created: Type.String({ description: 'legacy date, e.g. "Apr 9, 2017 3:04:05 PM"' }),
  reftime: Type.Optional(Type.String()),
});

export function presentApp(app: App, timeZone: string) {
  return {
    id: app.id,
    key: app.key,
    secret: app.secret,
    name: app.name,
    description: app.description,
    ...(app.callbackUrl !== null && { callbackurl: app.callbackUrl }),
    created: legacyDate(app.created, timeZone),
    ...(app.reftime !== null && { reftime: legacyDate(app.reftime, timeZone) }),
  };
}
