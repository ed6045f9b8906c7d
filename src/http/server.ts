import Fastify, { LogController } from 'fastify';
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Context } from '../context.js';
import type { Limits } from '../config.js';
import type { Server } from './server-types.js';
import { installBodyParsers } from './body-parsers.js';
import { installNulGuard } from './nul-characters.js';
import { errorBody, installErrorRendering } from './error-rendering.js';
import { ErrorSchema } from './schemas.js';
import { registerRoutes } from './routes/index.js';
import { VERSION } from '../version.js';
import { sessionsPlugin } from './plugins/sessions.js';
import { auditPlugin } from './plugins/audit.js';
import { requestMetricsPlugin } from './plugins/request-metrics.js';
import { connectionLimits } from './plugins/connection-limits.js';
import { loadShedding } from './plugins/load-shedding.js';
import { rateLimits } from './plugins/rate-limits.js';
import { finiteInputs, finiteNumbers } from './finite-numbers.js';


/** A hop count trusts that many proxies nearest to snsr; addresses and booleans are Fastify's own forms. */
const proxyTrust = (trust: Limits['trustProxy']) => (typeof trust === 'number' ? (_address: string, hop: number) => hop < trust : trust);

/** Builds the HTTP app on a context; `listen` is the caller's business (tests use `inject`). */
export async function buildServer(context: Context): Promise<Server> {
  const verbose = ['debug', 'trace'].includes(context.config.logLevel);
  const app = Fastify({
    loggerInstance: context.log as FastifyBaseLogger,
    // Per-request log lines halve throughput; errors are always logged, requests only when debugging.
    logController: new LogController({ disableRequestLogging: !verbose }),
    bodyLimit: context.config.bodyLimit,
    trustProxy: proxyTrust(context.config.limits.trustProxy),
    // Old clients send parameters unencoded; the router must not choke on odd paths.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // A path the router cannot decode, or a path parameter beyond its length: the usual error body.
    frameworkErrors: (error, _request, reply) => {
      const status = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400;
      const message = status === 414 ? 'a path parameter is longer than 200 characters' : 'the path is not valid percent-encoding';
      void (reply as FastifyReply).code(status).send(errorBody(status, message));
    },
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false }, plugins: [finiteNumbers] },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.addHook('onRoute', (route) => finiteInputs(route.schema));
  installErrorRendering(app);
  connectionLimits(app, context.config.limits);
  await loadShedding(app, context.config.limits.maxEventLoopDelayMs);
  installBodyParsers(app);
  installNulGuard(app);
  app.addSchema(ErrorSchema);

  // Browser dashboards call cross-origin with credentials.
  await app.register(cors, {
    origin: true,
    credentials: true,
    allowedHeaders: ['authorization', 'x-snsr-device-key', 'content-type', 'x-requested-with'],
    methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
    maxAge: 600,
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'snsr API',
        version: VERSION,
        description: 'SENSOR-compatible developer and device API, and the Sigfox uplink endpoint.',
      },
      components: {
        securitySchemes: {
          basic: { type: 'http', scheme: 'basic', description: 'email:password, or the account token or an API key token as the whole credential' },
          session: { type: 'apiKey', in: 'cookie', name: 'snsr_session', description: "the dashboard's session (POST /iot/developers/session.json); same origin only" },
          deviceKey: { type: 'apiKey', in: 'header', name: 'X-Snsr-Device-Key', description: 'token from GET /iot/devices/crc.json' },
          network: { type: 'http', scheme: 'bearer', description: 'SNSR_NETWORK_TOKEN' },
          metrics: { type: 'http', scheme: 'bearer', description: 'SNSR_METRICS_TOKEN' },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  await rateLimits(app, context);
  await sessionsPlugin(app, context);
  await auditPlugin(app, context);
  await requestMetricsPlugin(app, context);
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await registerRoutes(app, context);
  return app;
}
