import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';

function badBody(message: string): Error & { statusCode: number } {
  return Object.assign(new Error(message), { statusCode: 400 });
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  if (nestsDeeperThan(text)) throw badBody(`body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    // Plain JSON.parse speed; only bodies that mention __proto__ or constructor are scanned.
    return secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' });
  } catch (error) {
    throw badBody(`body is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * Old clients send empty bodies with a JSON content type, and JSON with a form content type (the
 * original accepted both), so both parsers tolerate them: an empty body is no body, and a form
 * body that starts like JSON is read as JSON.
 */
export function installBodyParsers(app: FastifyInstance): void {
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser(['application/json', 'text/json'], { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJson(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    const text = (body as string).trim();
    try {
      if (text.startsWith('{') || text.startsWith('[')) return done(null, parseJson(text));
      done(null, text === '' ? undefined : Object.fromEntries(new URLSearchParams(text)));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  // An absent body is an empty one, so body schemas (all-optional where parameters may come from
  // the query string instead) validate it like `{}`.
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined && request.method !== 'GET' && request.method !== 'HEAD') request.body = {};
  });
  // Bodies of other types carry no parameters of ours; an empty text body is no body.
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) => {
    const text = (body as string).trim();
    try {
      done(null, text.startsWith('{') || text.startsWith('[') ? parseJson(text) : undefined);
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
