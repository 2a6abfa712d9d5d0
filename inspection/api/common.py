"""Small helpers shared by the API blueprints."""
from ..extensions import db


def paginate(query, args: dict) -> dict:
    """One page of a query as {items, page, per_page, total}; the count is one indexed query."""
    page, per_page = args["page"], args["per_page"]
    total = db.session.scalar(db.select(db.func.count()).select_from(query.order_by(None).subquery()))
    items = db.session.scalars(query.limit(per_page).offset((page - 1) * per_page)).all()
    return {"items": items, "page": page, "per_page": per_page, "total": total}


BEARER = [{"bearerAuth": []}]
