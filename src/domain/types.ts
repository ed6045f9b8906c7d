import type { Protocol } from '../protocol/udm/index.js';

/** Domain objects: numbers and Dates. Wire spellings and formats live in the HTTP presenters. */

export interface Account {
  id: number;
  email: string;
  passwordHash: string;
  apiKeySalt: string;
  gitAlias: string | null;
  createdAt: Date;
}

export interface CatalogModule {
  serial: string;
  key: string;
  pac: string;
  protocol: Protocol;
  accountId: number | null;
  registeredAt: Date | null;
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
