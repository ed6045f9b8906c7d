// SERVICE frames (type 5, section 7): sub-type (0 SMS, 1 TWEET) + up to 9 bytes of message text.
import { broken, onlyKeys, type FrameCodec } from './codec.js';

const CODES = ['service_sms', 'service_tweet'];

export const serviceCodec: FrameCodec = {
  decode(b, n, p, header, note) {
    if (n < 3) return broken(3, 'service frame without a sub-type');
    const code = CODES[b[2]];
    note?.('service sub-type', 16, 8, `${b[2]} = ${code ?? 'undefined'}`);
    if (code === undefined) return broken(8, `service sub-type ${b[2]} is not defined`);
    // The UDM22 library refuses to send an empty text; UDM23 sends one.
    if (n === 3 && p === 'UDM22') return broken('section 7', 'UDM22 service frame without text');
    let text = '';
    for (let i = 3; i < n; i++) text += String.fromCharCode(b[i]); // ASCII; other bytes kept as Latin-1
    if (n > 3) note?.('text', 24, (n - 3) * 8, JSON.stringify(text));
    return { header, code, custom: { text } };
  },
  encode(frame, p, out) {
    const sub = CODES.indexOf(frame.code);
    const text = frame.custom.text;
    onlyKeys(frame, ['text']);
    if (sub < 0) throw new RangeError(`${frame.code} is not a service code`);
    if (typeof text !== 'string' || text.length > 9 || (p === 'UDM22' && text === '') || [...text].some((ch) => ch.charCodeAt(0) > 0xff)) {
      throw new RangeError(`${frame.code}: custom.text must be ${p === 'UDM22' ? '1' : '0'}..9 Latin-1 characters`);
    }
    out.push(sub, ...Array.from(text, (ch) => ch.charCodeAt(0)));
  },
};
