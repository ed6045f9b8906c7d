// The per-frame-type codecs, indexed by the header's type nibble (section 2).
import type { FrameCodec } from './codec.js';
import { dataCodec } from './data.js';
import { eventCodec } from './event.js';
import { keepaliveCodec } from './keepalive.js';
import { opaqueCodec } from './opaque.js';
import { pingCodec, registerCodec } from './register.js';
import { serviceCodec } from './service.js';

export const CODECS: readonly FrameCodec[] = [
  eventCodec, dataCodec, registerCodec, keepaliveCodec, opaqueCodec, serviceCodec, opaqueCodec, pingCodec,
];
