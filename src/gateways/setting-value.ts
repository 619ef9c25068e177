/**
 * The values a gateway's driver settings take (contract §20 "Configuring a driver"), apart from the
 * catalogue so that the gateway entity and the catalogue both read them.
 */

/** One route of a routing gateway's `routes` setting. */
export interface RouteValue {
  gateway: string;
  weight?: number;
}
export type SettingValue = string | number | boolean | RouteValue[];
/** A `routes` setting's bounds (contract §21): 1 to this many routes, each weighing 1 to 100. */
export const ROUTES_MAX = 5;
export const ROUTE_WEIGHT_MIN = 1;
export const ROUTE_WEIGHT_MAX = 100;
