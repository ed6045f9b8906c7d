/** snsr's version: the OpenAPI document, `snsr --version` and the callback User-Agent show it. */
export const VERSION = '0.1.0';
