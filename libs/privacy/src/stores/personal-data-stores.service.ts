import { Injectable } from '@nestjs/common';
import { DiscoveryService, Reflector } from '@nestjs/core';
import { PERSONAL_DATA_STORE, type PersonalDataStore } from '@foresight/platform';

/**
 * Every personal-data store of the running process, found by their @PersonalDataStoreProvider()
 * mark: privacy drives them without knowing any other module's tables. Each store is declared by
 * one module only, so each is found once, whatever the process composes.
 */
@Injectable()
export class PersonalDataStoresService {
  private found?: readonly PersonalDataStore[];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
  ) {}

  all(): readonly PersonalDataStore[] {
    this.found ??= this.discover();
    return this.found;
  }

  private discover(): PersonalDataStore[] {
    const byName = new Map<string, PersonalDataStore>();
    for (const wrapper of this.discovery.getProviders()) {
      const { metatype } = wrapper;
      const instance: unknown = wrapper.instance;
      if (!instance || typeof metatype !== 'function' || !this.reflector.get<boolean>(PERSONAL_DATA_STORE, metatype)) continue;
      const store = instance as PersonalDataStore;
      if (byName.has(store.name)) throw new Error(`two personal-data stores are named "${store.name}": a store is declared by one module only`);
      byName.set(store.name, store);
    }
    return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  }
}
