import { expect } from 'vitest';
import type { TestApp } from './app.js';
import { PASSWORD } from './app.js';

/** The host the tests' dashboard is served from: its origin is `http://snsr.test`. */
export const HOST = 'snsr.test';
export const ORIGIN = `http://${HOST}`;

/** What a browser sends with a same-origin fetch from the dashboard, with the session cookie. */
export const sameOrigin = (cookie: string): Record<string, string> => ({ host: HOST, origin: ORIGIN, 'sec-fetch-site': 'same-origin', cookie });

/** Signs in through POST /iot/developers/session.json as the dashboard does; returns the Cookie header to send. */
export async function signIn(app: TestApp, email: string, password = PASSWORD): Promise<string> {
  const response = await app.server.inject({
    method: 'POST',
    url: '/iot/developers/session.json',
    headers: { host: HOST, origin: ORIGIN, 'sec-fetch-site': 'same-origin' },
    payload: { email, password },
  });
  expect(response.statusCode, response.body).toBe(200);
  const cookie = response.cookies.find((c) => c.name === 'snsr_session');
  expect(cookie).toBeDefined();
  return `snsr_session=${cookie!.value}`;
}
