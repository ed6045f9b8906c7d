// Public API of the UDM codec: a pure library (no I/O, no logging, Node built-ins only).
export { PROTOCOLS, parseProtocol } from './frame.js';
export type { CustomValues, DecodeResult, Frame, FrameHeader, FrameTypeName, Protocol } from './frame.js';
export { FRAME_TYPES, frameTypeString } from './header.js';
export { EVENT_CODES } from './event.js';
export { decode } from './decode.js';
export { normalizeFrameText } from './hex.js';
export { encode } from './encode.js';
export { present } from './present.js';
export type { PresentedFrame } from './present.js';
export { messageType } from './message-type.js';
export { explain } from './explain.js';
export type { ExplainField, ExplainResult } from './explain.js';
export { formatExplain } from './format-explain.js';
export { statusUpdate } from './device-status.js';
export type { StatusField, StatusUpdate, StatusValue } from './device-status.js';
