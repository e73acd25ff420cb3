import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, StreamViewType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { table } from '../../lib/db/table.js';

export interface StoreTableProps {
  /** Dev stages may be destroyed with their data; production tables are retained and protected. */
  readonly disposable: boolean;
}

/** The single table, built from the same definition as the local setup (lib/db/table.ts). */
export class StoreTable extends Construct {
  readonly table: TableV2;

  constructor(scope: Construct, id: string, props: StoreTableProps) {
    super(scope, id);
    this.table = new TableV2(this, 'Table', {
      partitionKey: { name: table.partitionKey, type: AttributeType.STRING },
      sortKey: { name: table.sortKey, type: AttributeType.STRING },
      billing: Billing.onDemand(),
      globalSecondaryIndexes: Object.entries(table.indexes).map(([indexName, index]) => ({
        indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
      })),
      timeToLiveAttribute: table.ttlAttribute,
      dynamoStream: StreamViewType[table.stream],
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: !props.disposable,
      removalPolicy: props.disposable ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    });
  }
}
