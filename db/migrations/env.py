from alembic import context
from sqlmodel import SQLModel

import db.offers  # noqa: F401  (registers the tables on the metadata)
import db.tables  # noqa: F401

target_metadata = SQLModel.metadata


def run_migrations_online() -> None:
    engine = context.config.attributes["engine"]
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
            transaction_per_migration=True,
        )
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()


run_migrations_online()
