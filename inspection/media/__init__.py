"""Photos and signatures: write-once storage on local disk or in an S3 bucket, photo checks and derived copies, drawn
signatures, and the installation's configured store and limits.
"""
