/**
 * The Thelia 2.4 tables the import reads, written for our tests from the upstream column facts
 * (names, types, NULLs and defaults of thelia/thelia 2.4.5 setup/thelia.sql), without the foreign
 * keys, so that fixtures can also hold the dangling references an old store may have. Plus a
 * helper that inserts rows given as objects.
 */
import type mysql from 'mysql2/promise';

export const THELIA_TABLES: readonly string[] = [
  `CREATE TABLE customer_title (
    id INTEGER NOT NULL AUTO_INCREMENT, by_default INTEGER DEFAULT 0 NOT NULL, position VARCHAR(45) NOT NULL,
    created_at DATETIME, updated_at DATETIME, PRIMARY KEY (id)
  ) ENGINE=InnoDB CHARACTER SET='utf8'`,
  `CREATE TABLE lang (
    id INTEGER NOT NULL AUTO_INCREMENT, title VARCHAR(100), code VARCHAR(10), locale VARCHAR(45), url VARCHAR(255),
    date_format VARCHAR(45), time_format VARCHAR(45), datetime_format VARCHAR(45), decimal_separator VARCHAR(45),
    thousands_separator VARCHAR(45), active TINYINT(1) DEFAULT 0, visible TINYINT DEFAULT 0, decimals VARCHAR(45),
    by_default TINYINT, position INTEGER, created_at DATETIME, updated_at DATETIME, PRIMARY KEY (id)
  ) ENGINE=InnoDB CHARACTER SET='utf8'`,
  `CREATE TABLE currency (
    id INTEGER NOT NULL AUTO_INCREMENT, code VARCHAR(45), symbol VARCHAR(45), format CHAR(10), rate FLOAT,
    visible TINYINT DEFAULT 0, position INTEGER, by_default TINYINT DEFAULT 0, created_at DATETIME, updated_at DATETIME,
    PRIMARY KEY (id)
  ) ENGINE=InnoDB CHARACTER SET='utf8'`,
  `CREATE TABLE customer (
    id INTEGER NOT NULL AUTO_INCREMENT, title_id INTEGER NOT NULL, lang_id INTEGER, ref VARCHAR(50),
    firstname VARCHAR(255) NOT NULL, lastname VARCHAR(255) NOT NULL, email VARCHAR(255), password VARCHAR(255),
    algo VARCHAR(128), reseller TINYINT, sponsor VARCHAR(50), discount DECIMAL(16,6) DEFAULT 0.000000,
    remember_me_token VARCHAR(255), remember_me_serial VARCHAR(255), enable TINYINT DEFAULT 0,
    confirmation_token VARCHAR(255), created_at DATETIME, updated_at DATETIME, version INTEGER DEFAULT 0,
    version_created_at DATETIME, version_created_by VARCHAR(100),
    PRIMARY KEY (id), UNIQUE INDEX ref_UNIQUE (ref), INDEX idx_email (email)
  ) ENGINE=InnoDB CHARACTER SET='utf8'`,
  `CREATE TABLE address (
    id INTEGER NOT NULL AUTO_INCREMENT, label VARCHAR(255), customer_id INTEGER NOT NULL, title_id INTEGER NOT NULL,
    company VARCHAR(255), firstname VARCHAR(255) NOT NULL, lastname VARCHAR(255) NOT NULL, address1 VARCHAR(255) NOT NULL,
    address2 VARCHAR(255) NOT NULL, address3 VARCHAR(255) NOT NULL, zipcode VARCHAR(10) NOT NULL, city VARCHAR(255) NOT NULL,
    country_id INTEGER NOT NULL, state_id INTEGER, phone VARCHAR(20), cellphone VARCHAR(20), is_default TINYINT DEFAULT 0,
    created_at DATETIME, updated_at DATETIME, PRIMARY KEY (id), INDEX idx_address_customer_id (customer_id)
  ) ENGINE=InnoDB CHARACTER SET='utf8'`,
  `CREATE TABLE tax_rule (
    id INTEGER NOT NULL AUTO_INCREMENT, is_default TINYINT(1) DEFAULT 0 NOT NULL, created_at DATETIME, updated_at DATETIME,
    PRIMARY KEY (id)
  ) ENGINE=InnoDB CHARACTER SET='utf8'`,
  `CREATE TABLE tax_rule_i18n (
    id INTEGER NOT NULL, locale VARCHAR(5) DEFAULT 'en_US' NOT NULL, title VARCHAR(255), description LONGTEXT,
    PRIMARY KEY (id, locale)
  ) ENGINE=InnoDB CHARACTER SET='utf8'`,
  `CREATE TABLE tax_rule_country (
    id INTEGER NOT NULL AUTO_INCREMENT, tax_rule_id INTEGER NOT NULL, country_id INTEGER NOT NULL, state_id INTEGER,
    tax_id INTEGER NOT NULL, position INTEGER NOT NULL, created_at DATETIME, updated_at DATETIME, PRIMARY KEY (id),
    INDEX idx_tax_rule_country_tax_rule_id_country_id_position (tax_rule_id, country_id, position)
  ) ENGINE=InnoDB CHARACTER SET='utf8'`,
  `CREATE TABLE product (
    id INTEGER NOT NULL AUTO_INCREMENT, tax_rule_id INTEGER, ref VARCHAR(255) NOT NULL, visible TINYINT DEFAULT 0 NOT NULL,
    position INTEGER DEFAULT 0 NOT NULL, template_id INTEGER, brand_id INTEGER, virtual TINYINT DEFAULT 0 NOT NULL,
    created_at DATETIME, updated_at DATETIME, version INTEGER DEFAULT 0, version_created_at DATETIME,
    version_created_by VARCHAR(100), PRIMARY KEY (id), UNIQUE INDEX ref_UNIQUE (ref)
  ) ENGINE=InnoDB CHARACTER SET='utf8'`,
  `CREATE TABLE product_i18n (
    id INTEGER NOT NULL, locale VARCHAR(5) DEFAULT 'en_US' NOT NULL, title VARCHAR(255), description LONGTEXT,
    chapo TEXT, postscriptum TEXT, meta_title VARCHAR(255), meta_description TEXT, meta_keywords TEXT,
    PRIMARY KEY (id, locale)
  ) ENGINE=InnoDB CHARACTER SET='utf8'`,
  `CREATE TABLE product_sale_elements (
    id INTEGER NOT NULL AUTO_INCREMENT, product_id INTEGER NOT NULL, ref VARCHAR(255) NOT NULL, quantity FLOAT NOT NULL,
    promo TINYINT DEFAULT 0, newness TINYINT DEFAULT 0, weight FLOAT DEFAULT 0, is_default TINYINT(1) DEFAULT 0,
    ean_code VARCHAR(255), created_at DATETIME, updated_at DATETIME, PRIMARY KEY (id),
    INDEX idx_product_sale_element_product_id (product_id),
    CONSTRAINT fk_product_sale_element_product_id FOREIGN KEY (product_id) REFERENCES product (id) ON DELETE CASCADE
  ) ENGINE=InnoDB CHARACTER SET='utf8'`,
  `CREATE TABLE product_price (
    product_sale_elements_id INTEGER NOT NULL, currency_id INTEGER NOT NULL, price DECIMAL(16,6) DEFAULT 0.000000 NOT NULL,
    promo_price DECIMAL(16,6) DEFAULT 0.000000 NOT NULL, from_default_currency TINYINT(1) DEFAULT 1 NOT NULL,
    created_at DATETIME, updated_at DATETIME, PRIMARY KEY (product_sale_elements_id, currency_id),
    CONSTRAINT fk_product_price_product_sale_elements_id FOREIGN KEY (product_sale_elements_id) REFERENCES product_sale_elements (id) ON DELETE CASCADE
  ) ENGINE=InnoDB CHARACTER SET='utf8'`,
  `CREATE TABLE category (
    id INTEGER NOT NULL AUTO_INCREMENT, parent INTEGER DEFAULT 0 NOT NULL, visible TINYINT NOT NULL, position INTEGER NOT NULL,
    default_template_id INTEGER, created_at DATETIME, updated_at DATETIME, version INTEGER DEFAULT 0,
    version_created_at DATETIME, version_created_by VARCHAR(100), PRIMARY KEY (id), INDEX idx_parent (parent)
  ) ENGINE=InnoDB CHARACTER SET='utf8'`,
  `CREATE TABLE category_i18n (
    id INTEGER NOT NULL, locale VARCHAR(5) DEFAULT 'en_US' NOT NULL, title VARCHAR(255), description LONGTEXT,
    chapo TEXT, postscriptum TEXT, meta_title VARCHAR(255), meta_description TEXT, meta_keywords TEXT,
    PRIMARY KEY (id, locale)
  ) ENGINE=InnoDB CHARACTER SET='utf8'`,
  `CREATE TABLE product_category (
    product_id INTEGER NOT NULL, category_id INTEGER NOT NULL, default_category TINYINT(1), position INTEGER NOT NULL,
    created_at DATETIME, updated_at DATETIME, PRIMARY KEY (product_id, category_id)
  ) ENGINE=InnoDB CHARACTER SET='utf8'`,
  `CREATE TABLE brand (
    id INTEGER NOT NULL AUTO_INCREMENT, visible TINYINT, position INTEGER, logo_image_id INTEGER,
    created_at DATETIME, updated_at DATETIME, PRIMARY KEY (id)
  ) ENGINE=InnoDB CHARACTER SET='utf8'`,
  `CREATE TABLE brand_i18n (
    id INTEGER NOT NULL, locale VARCHAR(5) DEFAULT 'en_US' NOT NULL, title VARCHAR(255), description LONGTEXT,
    chapo TEXT, postscriptum TEXT, meta_title VARCHAR(255), meta_description TEXT, meta_keywords TEXT,
    PRIMARY KEY (id, locale)
  ) ENGINE=InnoDB CHARACTER SET='utf8'`,
  `CREATE TABLE attribute (
    id INTEGER NOT NULL AUTO_INCREMENT, position INTEGER, created_at DATETIME, updated_at DATETIME, PRIMARY KEY (id)
  ) ENGINE=InnoDB CHARACTER SET='utf8'`,
  `CREATE TABLE attribute_i18n (
    id INTEGER NOT NULL, locale VARCHAR(5) DEFAULT 'en_US' NOT NULL, title VARCHAR(255), description LONGTEXT,
    chapo TEXT, postscriptum TEXT, PRIMARY KEY (id, locale)
  ) ENGINE=InnoDB CHARACTER SET='utf8'`,
  `CREATE TABLE attribute_av (
    id INTEGER NOT NULL AUTO_INCREMENT, attribute_id INTEGER NOT NULL, position INTEGER NOT NULL,
    created_at DATETIME, updated_at DATETIME, PRIMARY KEY (id), INDEX idx_attribute_av_attribute_id (attribute_id)
  ) ENGINE=InnoDB CHARACTER SET='utf8'`,
  `CREATE TABLE attribute_av_i18n (
    id INTEGER NOT NULL, locale VARCHAR(5) DEFAULT 'en_US' NOT NULL, title VARCHAR(255), description LONGTEXT,
    chapo TEXT, postscriptum TEXT, PRIMARY KEY (id, locale)
  ) ENGINE=InnoDB CHARACTER SET='utf8'`,
  `CREATE TABLE attribute_combination (
    attribute_id INTEGER NOT NULL, attribute_av_id INTEGER NOT NULL, product_sale_elements_id INTEGER NOT NULL, position INTEGER,
    created_at DATETIME, updated_at DATETIME, PRIMARY KEY (attribute_id, attribute_av_id, product_sale_elements_id),
    CONSTRAINT fk_attribute_combination_product_sale_elements_id FOREIGN KEY (product_sale_elements_id) REFERENCES product_sale_elements (id) ON DELETE CASCADE
  ) ENGINE=InnoDB CHARACTER SET='utf8'`,
];

export type TheliaRow = Record<string, string | number | null>;

/** Inserts rows (objects with the same columns) into a table, many to a statement. */
export async function insertRows(db: mysql.Connection, table: string, rows: readonly TheliaRow[], perStatement = 500): Promise<void> {
  for (let i = 0; i < rows.length; i += perStatement) {
    const slice = rows.slice(i, i + perStatement);
    const columns = Object.keys(slice[0]!);
    await db.query(`INSERT INTO \`${table}\` (${columns.map((c) => `\`${c}\``).join(', ')}) VALUES ?`, [slice.map((row) => columns.map((c) => row[c]))]);
  }
}
