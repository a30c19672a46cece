# FROM nvidia/cuda:11.8.0-devel-ubuntu22.04 was the old base
ARG BASE_IMAGE=nvcr.io/nvidia/pytorch:23.10-py3
FROM ${BASE_IMAGE} AS build
RUN pip wheel --no-deps -w /wheels .

FROM ubuntu:22.04
COPY --from=build /wheels /wheels
