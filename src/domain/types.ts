import type { Protocol } from '../protocol/udm/index.js';

/** Domain objects: numbers and Dates. Wire spellings and formats live in the HTTP presenters. */

export interface Account {
  id: number;
  email: string;
  passwordHash: string;
  apiKeySalt: string;
  gitAlias: string | null;
  createdAt: Date;
  firstname: string | null;
  lastname: string | null;
}

export type KeyScope = 'read' | 'full';

/** How a request proved who it is: the audit log names it, and an API key's scope limits it. */
export type Credential =
  | { kind: 'session'; sessionHash: string }
  | { kind: 'password' }
  | { kind: 'token' }
  | { kind: 'key'; keyId: number; name: string; scope: KeyScope }
  /** an emailed activation or password-reset link */
  | { kind: 'link' };

export interface Authenticated {
  account: Account;
  credential: Credential;
}

export interface ApiKey {
  id: number;
  accountId: number;
  name: string;
  prefix: string;
  scope: KeyScope;
  created: Date;
  expires: Date | null;
  lastUsed: Date | null;
}

export interface Session {
  /** SHA-256 of the cookie's id: what the database holds. */
  idHash: string;
  accountId: number;
  created: Date;
  lastUsed: Date;
  /** Absolute expiry; the idle expiry is `lastUsed` plus the idle timeout. */
  expires: Date;
}

export interface AuditEntry {
  id: number;
  accountId: number;
  at: Date;
  action: string;
  credential: string | null;
  keyName: string | null;
  address: string | null;
  detail: Record<string, unknown> | null;
}

export interface CatalogModule {
  serial: string;
  key: string;
  pac: string;
  protocol: Protocol;
  accountId: number | null;
  registeredAt: Date | null;
  /** Which registration the module is in: 0 at import, one more at every registration and unregistration. */
  registration: number;
  /** The device key the current owner set; null while the printed key and the PAC are in force. */
  deviceKey: string | null;
}

export type Health = 'ON' | 'OFF' | 'UNKNOWN';
export type Temperature = 'LOW' | 'OK' | 'HIGH' | 'UNKNOWN';

export interface Device {
  id: number;
  moduleSerial: string;
  index: number;
  serial: string;
  uid: string | null;
  category: string | null;
  active: boolean;
  watched: boolean;
  alerts: number;
  alertsAck: number;
  losts: number;
  msgs: number;
  firstseen: Date | null;
  lastseen: Date | null;
  battery: Health;
  level: Health;
  network: Health;
  tamper: Health;
  temp: Temperature;
  status: string;
  type: string;
  bidirval: string | null;
}

/** A device's newest message, as the children operation shows it. */
export interface LastMessage {
  /** reception time, epoch ms (the message's `when`) */
  when: number;
  /** the frame, hex */
  frame: string;
  /** the frame's code (`event_temp_low`) and decoded values */
  code: string;
  custom: Record<string, unknown>;
  lvl: number | null;
  station: string;
}

/** A device behind a gateway, with its newest message when it has one. */
export interface Child extends Device {
  lastMessage: LastMessage | null;
}

export interface App {
  id: number;
  accountId: number;
  name: string;
  description: string;
  callbackUrl: string | null;
  key: string;
  secret: string;
  created: Date;
  reftime: Date | null;
}

/** A registered module as the developer operations list it: its own device's id and its serial. */
export interface ModuleListItem {
  id: number;
  serial: string;
}
